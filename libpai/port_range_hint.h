// The way out when a port of a job is taken on its node: most often another job there holds
// the range, and the job spec's portRange moves this one's. Said by the network check and by
// a coordinator that cannot listen.
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai {

/// "another job on this node? this job's ports come from portRange MIN-MAX: set portRange.min
/// and portRange.max in the job spec to a range no other job here uses"
std::string port_range_hint(const Plan& plan);

}  // namespace pai
