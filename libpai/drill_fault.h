// The faults `pai-launch drill` injects into a running job (docs/drill.md), each into the
// job's own processes only: their names on the command line, on the wire and in the journal.
#pragma once

#include <array>

#include "libpai/enum_names.h"

namespace pai {

enum class DrillFault {
  RankKill,  ///< SIGKILL one rank's process
  RankHang,  ///< SIGSTOP one rank's process for the fault's seconds (a hang outside collectives)
  SlowRank,  ///< one rank's process stopped 75 ms of every 100 ms for the fault's seconds
  NodeLoss,  ///< the node's launcher SIGKILLs itself (its ranks go with it)
};

/// How long one stop/continue cycle of SlowRank lasts, and how much of it the rank is stopped:
/// what a cgroup's cpu.max "25000 100000" (a quarter of a CPU in CFS's default period) leaves.
inline constexpr int kSlowRankPeriodMs = 100;
inline constexpr int kSlowRankStoppedMs = 75;

/// The longest a bounded fault (RankHang, SlowRank) may last, in seconds.
inline constexpr int kMaxFaultSeconds = 3600;

/// Whether the fault lasts its seconds and is then undone (RankHang, SlowRank).
constexpr bool bounded(DrillFault fault) {
  return fault == DrillFault::RankHang || fault == DrillFault::SlowRank;
}

/// Spelling of DrillFault.
template <>
struct EnumNames<DrillFault> {
  static constexpr std::array<EnumName<DrillFault>, 4> table{{{DrillFault::RankKill, "rank-kill"},
                                                              {DrillFault::RankHang, "rank-hang"},
                                                              {DrillFault::SlowRank, "slow-rank"},
                                                              {DrillFault::NodeLoss, "node-loss"}}};
};

}  // namespace pai
