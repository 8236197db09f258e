// The faults `pai-launch drill` injects into a running job (docs/drill.md), each into the
// job's own processes, its node's own link or its output folder's disk only: their names on the
// command line, on the wire and in the journal.
#pragma once

#include <array>

#include "libpai/enum_names.h"

namespace pai {

enum class DrillFault {
  RankKill,  ///< SIGKILL one rank's process
  RankHang,  ///< SIGSTOP one rank's process for the fault's seconds (a hang outside collectives)
  SlowRank,  ///< one rank's process stopped 75 ms of every 100 ms for the fault's seconds
  /// one rank stays inside the next collective it completes for the fault's seconds: its peers
  /// complete it and wait in the next (the rank's telemetry writer holds; pai/telemetry.h)
  CollectiveHang,
  /// one rank's GPU (the one whose index is its local rank) shares its time with a burn the
  /// node's launcher runs on it for the fault's seconds: a throttled or contended GPU
  SlowGpu,
  NodeLoss,  ///< the node's launcher SIGKILLs itself (its ranks go with it)
  /// the node's egress limited to kSlowLinkRate for the fault's seconds (tc; not the
  /// coordinator's connection)
  SlowLink,
  /// everything the node sends dropped for the fault's seconds (tc; not to the coordinator)
  DroppedLink,
  /// the file system of the job's output folder filled for the fault's seconds (a file of the
  /// node's launcher)
  DiskFull,
};

/// How long one stop/continue cycle of SlowRank lasts, and how much of it the rank is stopped:
/// what a cgroup's cpu.max "25000 100000" (a quarter of a CPU in CFS's default period) leaves.
inline constexpr int kSlowRankPeriodMs = 100;
inline constexpr int kSlowRankStoppedMs = 75;

/// What SlowLink leaves of the node's link, in tc's spelling: a slow or flapping port.
inline constexpr char kSlowLinkRate[] = "5mbit";

/// The longest a bounded fault may last, in seconds.
inline constexpr int kMaxFaultSeconds = 3600;

/// Whether the fault lasts its seconds and is then undone (all but RankKill and NodeLoss).
/// CollectiveHang's rank also ends it by itself at the deadline it was given.
constexpr bool bounded(DrillFault fault) {
  return fault != DrillFault::RankKill && fault != DrillFault::NodeLoss;
}

/// Whether the fault goes into the instance's node (its launcher or its link) rather than one
/// of its ranks: what a verdict must name is the node.
constexpr bool on_node(DrillFault fault) {
  return fault == DrillFault::NodeLoss || fault == DrillFault::SlowLink ||
         fault == DrillFault::DroppedLink || fault == DrillFault::DiskFull;
}

/// Whether the fault is on the node's link (SlowLink, DroppedLink).
constexpr bool on_link(DrillFault fault) {
  return fault == DrillFault::SlowLink || fault == DrillFault::DroppedLink;
}

/// Whether the node's launcher, not its supervisor, carries the fault out and undoes it (a tc
/// rule, a file filling the disk).
constexpr bool carried_by_node(DrillFault fault) {
  return on_link(fault) || fault == DrillFault::DiskFull;
}

/// Spelling of DrillFault.
template <>
struct EnumNames<DrillFault> {
  static constexpr std::array<EnumName<DrillFault>, 9> table{
      {{DrillFault::RankKill, "rank-kill"},
       {DrillFault::RankHang, "rank-hang"},
       {DrillFault::SlowRank, "slow-rank"},
       {DrillFault::CollectiveHang, "collective-hang"},
       {DrillFault::SlowGpu, "slow-gpu"},
       {DrillFault::NodeLoss, "node-loss"},
       {DrillFault::SlowLink, "slow-link"},
       {DrillFault::DroppedLink, "dropped-link"},
       {DrillFault::DiskFull, "disk-full"}}};
};

}  // namespace pai
