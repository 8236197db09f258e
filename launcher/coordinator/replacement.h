// Spares and assignments (design §7, §8): a ready spare takes the instance of a node that
// failed its checks or was lost; the plan is then placed again on the instances' hosts with
// pai::place (as every node does on `assign`), so ranks, MASTER_ADDR and ports agree
// everywhere. Internal to launcher/coordinator/.
#pragma once

#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"

namespace pai::launcher::coordinator {

/// The ready spare `spare` takes `instance` from the node holding it, which is released
/// (`finish` 0 "replaced by spare S: REASON", Close) when still connected. Records
/// "node-replaced". The caller assigns again when the job is running.
void replace_node(CoordinatorState& state, int instance, int spare, const std::string& reason);

/// Ready spares take the instances whose nodes failed their latest checks or are excluded,
/// connected or not (other missing nodes wait for the rendezvous timeout or a restart).
/// Returns the instances that moved.
std::vector<int> replace_failed_nodes(CoordinatorState& state);

/// What a node holding an instance that failed its checks leads to.
enum class CheckOutcome { Replaced, Retrying, Waiting, JobFailed };

/// A ready spare takes the instance; else the node runs its checks again while attempts
/// remain (sanityCheck.maxAttempts); else, during the rendezvous, it waits for a spare that
/// has not joined yet (or the rendezvous timeout); else the job fails naming the node and the
/// check.
CheckOutcome handle_failed_checks(CoordinatorState& state, int node);

/// Places the plan on the instances' current hosts, records "assignment" (`why` begins its
/// line) and sends `assign` to every connected node holding an instance. When pai::place
/// refuses the hosts, the job fails and false is returned.
bool assign_all(CoordinatorState& state, const std::string& why);

/// The `assign` message for one instance.
net::Assign assign_message(const CoordinatorState& state, int instance);

}  // namespace pai::launcher::coordinator
