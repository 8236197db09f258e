#include "libpai/port_range_hint.h"

namespace pai {

std::string port_range_hint(const Plan& plan) {
  return "another job on this node? this job's ports come from portRange " +
         std::to_string(plan.port_range_min) + "-" + std::to_string(plan.port_range_max) +
         ": set portRange.min and portRange.max in the job spec to a range no other job here uses";
}

}  // namespace pai
