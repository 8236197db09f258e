// A node's check runs kept in its history (spec `sanityCheck.history`, `pai-launch check
// --history`, issue 16): each run appended to DIR/<node>.jsonl (node_history.h), and the
// quarantine decided from the history reported as a check of its own, `history`, that fails
// while the node is quarantined, so the coordinator gives its instance to a spare as it does
// for any failed check.
#pragma once

#include <string>
#include <vector>

#include "launcher/checks/check_result.h"
#include "libpai/node_history.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Now, as a history record's time: "2024-05-01T10:00:00Z" (UTC).
std::string history_time_now();

/// The record of `node`'s run of `results`, timed now.
HistoryRecord history_record(const std::string& node, const std::vector<CheckResult>& results);

/// Appends `record` to `dir`'s history (a write that fails, e.g. on a full disk, becomes a
/// warning: the history is no check) and decides the node's quarantine by `policy`; the
/// warnings of both go to `warnings`.
Quarantine record_history(const std::string& dir, const HistoryRecord& record,
                          const QuarantinePolicy& policy, std::vector<std::string>* warnings);

/// With the plan's history on: records the run of `results` for `node` and appends the
/// `history` result, failed when the node is quarantined ("quarantined: failed 2 of its last
/// 5 checks (...)"), else passed ("failed 1 of its last 5 checks"), the warnings in its
/// detail. Does nothing without a history folder.
void keep_history(const Plan& plan, const std::string& node, std::vector<CheckResult>* results);

}  // namespace pai::checks
