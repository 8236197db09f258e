// The host list of an `assign` message (docs/protocol.md) as changes against the plan: only
// the instances whose host differs from the plan's placement are sent, so an assignment costs
// O(replacements) per node rather than O(nodes) (a 1,024-node rendezvous sent 57 MB of
// identical host lists otherwise).
#pragma once

#include <vector>

#include "launcher/net/protocol.h"
#include "libpai/plan.h"

namespace pai::net {

/// The hosts of `plan`'s placements, in instance order: the base the changes apply to.
std::vector<Host> planned_hosts(const Plan& plan);

/// One change for each i where hosts[i] differs from base[i] (same sizes).
std::vector<HostChange> host_changes(const std::vector<Host>& base, const std::vector<Host>& hosts);

/// `base` with `changes` applied. Throws net::ProtocolError "assign: hosts: instance I is not
/// in the plan (N instances)" for a change beyond `base`.
std::vector<Host> apply_host_changes(std::vector<Host> base,
                                     const std::vector<HostChange>& changes);

}  // namespace pai::net
