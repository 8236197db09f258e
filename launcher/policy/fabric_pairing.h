// The fabric check's rounds (design §12, issue 15): which nodes measure the link between them
// in each of at most three rounds. In a round every node is in at most one pair, so pairs run
// at the same time without sharing a node's NIC.
//
//   round 1: neighbours in node order, (0,1), (2,3), ...
//   round 2: nodes sorted by their round-1 figure, the slowest with the fastest it has not
//            been paired with yet; so a bad node meets a second, good partner, and a bad link
//            is not measured twice
//   round 3: only when the verdict after round 2 has suspects (a failed pair whose end never
//            passed with anyone): each suspect with a node it has not met, preferring nodes
//            that passed
//
// Odd N: one node sits out each round rather than joining a pair as a third (a third would
// share a NIC with two measurements at once and halve both figures). Round 1 leaves out the
// last node; round 2 pairs that node first (with the fastest node) and leaves out instead a
// node that already passed (the fastest one), so every node is measured at least once by the
// end of round 2, and round 3 settles a node measured only once whose pair failed.
#pragma once

#include <vector>

#include "launcher/policy/fabric_verdict.h"

namespace pai::launcher {

/// Two nodes that measure the link between them: `first` listens, `second` connects.
struct FabricPair {
  int first = 0;
  int second = 0;
  bool operator==(const FabricPair&) const = default;
};

/// Round 1 of `nodes` nodes (indices 0..nodes-1): (0,1), (2,3), ...; with an odd count the
/// last node sits out. Empty for fewer than 2 nodes.
std::vector<FabricPair> fabric_first_round(int nodes);

/// Round 2 from the results so far (round 1's) and their verdict: see the file comment.
/// Pairs already measured are never repeated, so 2 nodes get an empty round 2.
std::vector<FabricPair> fabric_second_round(int nodes, const std::vector<FabricPairResult>& results,
                                            const FabricVerdict& verdict);

/// Round 3: each of verdict.suspects with a node it has not been paired with, not a bad node
/// and not in another pair of this round, preferring nodes that passed (the fastest first),
/// then nodes not suspected, then other suspects. Empty when the verdict has no suspects (or
/// no partner is left for any of them).
std::vector<FabricPair> fabric_third_round(int nodes, const std::vector<FabricPairResult>& results,
                                           const FabricVerdict& verdict);

/// The nodes of 0..nodes-1 in no pair of `round`, in order.
std::vector<int> fabric_sitting_out(int nodes, const std::vector<FabricPair>& round);

}  // namespace pai::launcher
