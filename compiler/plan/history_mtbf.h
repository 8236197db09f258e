// A node's MTBF from the nodes' check histories (spec `sanityCheck.history`, docs/checks.md),
// for the checkpoint interval planner when the spec states no `nodeMtbf`: the failed check runs
// of the job's hosts over the time their histories cover (docs/checkpoint-planning.md, "From
// the node histories").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libpai/node_history.h"
#include "libpai/plan.h"

namespace pai {

/// Fewest failed runs the histories must hold before their MTBF is believed: with fewer, one
/// failure more or less moves the estimate by half or more.
inline constexpr std::int64_t kMinHistoryFailures = 3;
/// Least time, summed over the nodes, the histories must cover.
inline constexpr std::int64_t kMinHistoryNodeSeconds = 7 * 86400;

/// Seconds since the epoch of a history record's time ("2024-05-01T10:00:00Z", as
/// history_time_now writes it); nullopt for anything else.
std::optional<std::int64_t> parse_history_time(const std::string& text);

/// Counts the histories of some nodes, each oldest first: per node with at least two records
/// whose times read, the failed runs after its first record and the time from its first record
/// to its latest (a node's span at most kMaxDurationSeconds). Records whose time does not read
/// are skipped, each with a warning in `warnings`. `used` is left false.
MtbfHistory count_histories(const std::vector<std::vector<HistoryRecord>>& histories,
                            std::vector<std::string>* warnings);

/// The node MTBF the counts support: the time covered over the failures, at most
/// kMaxDurationSeconds; nullopt with fewer than kMinHistoryFailures failures or
/// kMinHistoryNodeSeconds covered.
std::optional<std::int64_t> history_node_mtbf(const MtbfHistory& counts);

/// Reads `dir`'s histories of `hosts` (each name once) and counts them; nullopt when none of
/// them has a history there (the folder may be on the nodes only).
std::optional<MtbfHistory> read_histories(const std::string& dir,
                                          const std::vector<std::string>& hosts,
                                          std::vector<std::string>* warnings);

}  // namespace pai
