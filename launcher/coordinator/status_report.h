// The `status` reply (docs/protocol.md): the job's phase and, for every node of the plan (hosts
// and spares), its instance, ranks, state, restarts and last event. Internal to
// launcher/coordinator/.
#pragma once

#include <string>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/run_view.h"

namespace pai::launcher::coordinator {

/// no-connection, checking, ready, standby, running, stopped, failed, succeeded or replaced.
std::string node_state(const CoordinatorState& state, int node);

/// The `status` reply at `now`; `job` is null before the job runs.
net::StatusReply status_message(const CoordinatorState& state, const RunView* job,
                                Clock::time_point now);

}  // namespace pai::launcher::coordinator
