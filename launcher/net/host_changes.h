// The host list of an `assign` message (docs/protocol.md) as changes against the plan: only
// the instances whose host differs from the plan's placement are sent, so an assignment costs
// O(replacements) per node rather than O(nodes) (a 1,024-node rendezvous sent 57 MB of
// identical host lists otherwise).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "libpai/plan.h"

namespace pai::net {

/// The hosts of `plan`'s placements, in instance order: the base the changes apply to.
std::vector<Host> planned_hosts(const Plan& plan);

/// `[{"instance": i, "name", "address", "slots"}...]` for each i where hosts[i] differs from
/// base[i] (same sizes).
nlohmann::json host_changes(const std::vector<Host>& base, const std::vector<Host>& hosts);

/// `base` with `changes` applied. Throws net::ProtocolError naming the problem for an entry
/// that is not an object with an instance in range, string name and address and an integer
/// slots.
std::vector<Host> apply_host_changes(std::vector<Host> base, const nlohmann::json& changes);

}  // namespace pai::net
