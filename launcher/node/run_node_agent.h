// `pai-launch run` on a node of a multi-node job: a NodeAgent (node_agent.h) built from the
// real parts — the link to the coordinator, the supervisor, remote commands, the log stream,
// background checks and the steady clock — and run.
#pragma once

#include <optional>
#include <utility>

#include "launcher/logs/event_log.h"
#include "launcher/node/node_agent.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// Runs this node's part of the job; returns the launcher's exit code (design §6): what the
/// coordinator decided for the job, 1 when the coordinator was lost or could not be reached,
/// 128+N when stopped by signal N. `ran`, when given, gets the instance (global) it last
/// started and that attempt, if it started any.
int run_node_agent(Plan& plan, const NodeAgentOptions& options, EventLog& events,
                   std::optional<std::pair<int, int>>* ran = nullptr);

}  // namespace pai::launcher
