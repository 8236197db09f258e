// `pai-launch status`: the coordinator's `status` message (docs/protocol.md) as a table for
// people, one row per node of the job.
#pragma once

#include <string>

#include "launcher/net/protocol.h"

namespace pai::launcher {

/// "job NAME: PHASE" and a table with aligned columns NODE ADDRESS INSTANCE RANKS STATE
/// RESTARTS LAST-EVENT ("-" for what a node does not have: a spare's instance and ranks, an
/// empty last event). When nodes sent figures of their running ranks (cgroups), a second
/// table follows after a blank line: RANK NODE PID CPU (seconds) MEMORY PEAK ("-" without the
/// memory controller).
std::string render_status_table(const net::StatusReply& status);

}  // namespace pai::launcher
