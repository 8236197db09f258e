// Sanity check results as the coordinator sees them (design §7): a node's fitness from the
// results of `join` and `checks`, run-checks requests, and the comparison of facts across
// nodes. Internal to launcher/coordinator/.
#pragma once

#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"

namespace pai::launcher::coordinator {

/// Parses the "checks" array of a `join` or `checks` message (JSON text of checks::to_json).
/// Throws net::ProtocolError "<type>: checks: <what>" when it is not.
std::vector<checks::CheckResult> parse_checks(const std::string& type, const std::string& array);

/// Takes a node's latest results: Ready when every check passed or was skipped, else Failed
/// with the failed checks' names and the first one's summary.
void apply_checks(Node& node, std::vector<checks::CheckResult> results);

/// "node-1 failed check burn: 12.1 TFLOPS below the floor of 100 (attempt 1 of 3)".
std::string check_failure_line(const Node& node, int max_attempts);

/// Sends `run-checks` to the node: the first attempt of a new round (before a restart) or
/// the next attempt of the current one. The node is Checking until it answers.
void request_checks(CoordinatorState& state, int node, bool new_round);

}  // namespace pai::launcher::coordinator
