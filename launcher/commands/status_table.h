// `pai-launch status`: the coordinator's `status` message (docs/protocol.md) as a table for
// people, one row per node of the job.
#pragma once

#include <string>

#include "launcher/net/protocol.h"

namespace pai::launcher {

/// "job NAME: PHASE" (", ETTR so far 97.25% (4 launchers' journals)" once the coordinator read
/// the goodput account, docs/goodput.md) and a table with aligned columns NODE ADDRESS INSTANCE
/// RANKS STATE RESTARTS LAST-EVENT ("-" for what a node does not have: a spare's instance and
/// ranks, an empty last event). When nodes sent figures (cgroups) or telemetry of their running
/// ranks, a second table follows after a blank line: RANK NODE PID STATE ATTEMPT STEP RATE (steps a
/// second over the latest heartbeat's window) ELAPSED (of the attempt) CPU (seconds) MEMORY
/// PEAK, "-" for what is unknown (no telemetry ring, no memory controller). Where a node sampled
/// its GPUs, every rank of it has a row and a last column GPU follows: the utilization of the
/// rank's GPU (the one whose index is its local rank), "-" when not known.
std::string render_status_table(const net::StatusReply& status);

}  // namespace pai::launcher
