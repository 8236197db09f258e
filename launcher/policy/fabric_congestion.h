// The fabric check's optional all-nodes round (design §12, issue 15): once the pair rounds
// gave their verdict, every node not excluded measures at once, each paired with the node
// half the plan away, (0, m), (1, m+1), ... for m = half the nodes. In a fabric whose nodes are
// listed rack by rack, every flow then crosses the middle of the network, as a job's
// collectives do: oversubscribed uplinks, a bad spine link or a congestion-control setting
// that only bites under load show as pairs far below what the same nodes reached alone.
//
// Congestion is the fabric's, not a node's: the finding names the slow pairs and the job-wide
// ratio, and excludes nobody.
#pragma once

#include <string>
#include <vector>

#include "launcher/policy/fabric_pairing.h"
#include "launcher/policy/fabric_verdict.h"

namespace pai::launcher {

/// What the all-nodes round found.
struct FabricCongestion {
  /// Below this share of the pairs' figures, a pair of the round counts as slow under load;
  /// below it at the median, the fabric is congested. As the verdict's relative floor, half:
  /// CPU-bound links vary up to 2x from one measurement to the next (a healthy all-nodes round
  /// on virtual links on a shared 2-core machine was measured at 47% and 126% of its pairs),
  /// while the oversubscription congestion brings is 2:1 or worse.
  static constexpr double kSlowBelow = 0.5;

  std::vector<FabricPairResult> results;  ///< the round's pairs
  /// Per result: what its two nodes reached in the pair rounds (the lower of their median
  /// passing figures); 0 when either has none.
  std::vector<double> expected_gbps;
  double median_gbps = 0;  ///< of the round's measured pairs
  /// The median of the measured pairs' figure over what they were expected to reach; 0 when
  /// none could be compared.
  double median_ratio = 0;
  /// Indices into results: errors and pairs under kSlowBelow of their expected figure.
  std::vector<int> slow;
  bool congested() const { return median_ratio > 0 && median_ratio < kSlowBelow; }
};

/// The all-nodes round over `nodes` (node indices in plan order, the excluded ones left
/// out): the i-th with the one half the list further on; an odd last node sits out.
std::vector<FabricPair> fabric_all_nodes_round(const std::vector<int>& nodes);

/// Judges the all-nodes round's `round` results against the pair rounds' `pairs` results
/// and their verdict (what each node reached alone).
FabricCongestion judge_congestion(const std::vector<FabricPairResult>& round,
                                  const std::vector<FabricPairResult>& pairs,
                                  const FabricVerdict& verdict);

/// One line for the terminal: "all nodes at once: median 3.10 Gbit/s, 45% of what the same
/// pairs' nodes reached alone; slow under load: node-1 <-> node-3 (0.20 of 5.00)".
std::string congestion_line(const FabricCongestion& c, const std::vector<std::string>& names);

}  // namespace pai::launcher
