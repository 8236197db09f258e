// The fabric check's verdict (design §12, issue 15): from the figures of node pairs measured
// in up to three rounds, which pairs failed, which nodes are bad and which links are bad.
//
// A pure decider: pair results come in, the verdict goes out. A pair fails on an error or a
// timeout, under the absolute floor, or under the relative floor (the median of all measured
// pairs minus 3 median absolute deviations); each engine's figure (TCP bandwidth, and the NCCL
// bus bandwidth where the pair ran NCCL) is judged against floors of its own. A node that
// fails with two different partners that are themselves cleared (they passed with someone) is
// bad; a failed pair whose two ends are both cleared and neither bad is a bad link, both ends
// named. A failed pair explained by
// neither is unresolved: its ends that were never cleared are suspects, which another round
// (fabric_pairing.h, third_round) is meant to settle.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pai::launcher {

/// What one pair measured. `first` and `second` are node indices; the order is the pairing's
/// (the first listens, the second connects), not significant for the verdict.
struct FabricPairResult {
  int first = 0;
  int second = 0;
  int round = 1;      ///< 1, 2 or 3
  std::string error;  ///< non-empty: the measurement failed (timeout, refused, garbage)
  /// The pair's TCP bandwidth in Gbit/s, the slower direction.
  double gbps = 0;
  double latency_us = 0;  ///< median round trip; 0 when not measured
  /// The NCCL engine's bus bandwidth in GB/s (10^9 bytes/s, nccl-tests' busbw), when the
  /// pair ran it.
  std::optional<double> bus_gbs = std::nullopt;
};

/// What the verdict compares figures with.
struct FabricThresholds {
  double floor_gbps = 0;      ///< absolute floor on the TCP figure, Gbit/s; 0 = none
  double floor_bus_gbs = 0;   ///< absolute floor on the NCCL bus bandwidth, GB/s; 0 = none
  /// The relative floor is median - max(3 * MAD, min_spread * median): with figures that
  /// agree closely the MAD is near 0, and the noise of any real measurement would fail the
  /// slower half. 0.5 fails a pair only below half the median: a pre-flight check that
  /// excludes nodes must not act on noise (CPU-bound veth pairs on a shared 2-core machine
  /// were measured 2x apart within one round), while a bad NIC, cable or port is usually
  /// several times slower or fails outright; the absolute floor catches smaller losses.
  double min_spread = 0.5;
  /// Fewer measured pairs than this (per engine): no relative floor. A median of 4 pairs is 2
  /// nodes' worth of figures each, and one bad node of 4 is in half of them.
  int min_pairs_for_relative = 6;
};

/// The judgement of one pair.
struct FabricPairJudgement {
  bool failed = false;
  std::string reason;  ///< why it failed: the error, "2.1 Gbit/s below the floor of 5"
};

/// A node named bad, and the partners it failed with.
struct FabricBadNode {
  int node = 0;
  std::vector<int> partners;  ///< in increasing order
  bool operator==(const FabricBadNode&) const = default;
};

/// A link named bad: first < second.
struct FabricBadLink {
  int first = 0;
  int second = 0;
  bool operator==(const FabricBadLink&) const = default;
};

/// The verdict over every pair measured so far.
struct FabricVerdict {
  std::vector<FabricPairJudgement> pairs;  ///< one per result, in the results' order
  double median_gbps = 0;                  ///< of the measured pairs (0 when none)
  double relative_floor_gbps = 0;          ///< 0 when the relative rule does not apply
  double median_bus_gbs = 0;               ///< of the pairs' NCCL figures (0 when none)
  double relative_floor_bus_gbs = 0;       ///< 0 when the relative rule does not apply
  std::vector<FabricBadNode> bad_nodes;    ///< in node order
  std::vector<FabricBadLink> bad_links;    ///< in (first, second) order
  /// Ends of unresolved failed pairs that never passed with anyone, in node order.
  std::vector<int> suspects;
  /// Every failed pair is explained by a bad node or a bad link.
  bool resolved() const { return suspects.empty(); }
  /// Nothing failed.
  bool healthy() const;
};

/// Judges every pair of `results` and names bad nodes, bad links and suspects.
FabricVerdict judge_fabric(const std::vector<FabricPairResult>& results,
                           const FabricThresholds& thresholds);

/// Whether node `node` passed with some partner in `results` under `verdict`.
bool fabric_cleared(const std::vector<FabricPairResult>& results, const FabricVerdict& verdict,
                    int node);

/// One line per finding, for the terminal and the failure message: "node 3 is bad: failed
/// with 1 and 2", "link 0-2 is bad", "node 5 is suspect"; `names` gives the node names (by
/// index). Empty when healthy.
std::vector<std::string> fabric_findings(const FabricVerdict& verdict,
                                         const std::vector<std::string>& names);

}  // namespace pai::launcher
