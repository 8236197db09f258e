// `pai-launch status`: the coordinator's `status` message (docs/protocol.md) as a table for
// people, one row per node of the job.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pai::launcher {

/// "job NAME: PHASE" and a table with aligned columns NODE ADDRESS INSTANCE RANKS STATE
/// RESTARTS LAST-EVENT ("-" for what a node does not have: a spare's instance and ranks, an
/// empty last event). Throws net::ProtocolError naming the field when `status` is malformed.
std::string render_status_table(const nlohmann::json& status);

}  // namespace pai::launcher
