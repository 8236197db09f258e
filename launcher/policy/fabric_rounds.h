// The fabric check from start to verdict (design §12, issue 15): hands out each round's pairs
// (fabric_pairing.h), takes their results, moves to the next round when the last one is in or
// the round's deadline passed, and ends with the verdict (fabric_verdict.h) after at most
// three rounds: round 2 always (when a new pairing exists), round 3 only when round 2 left
// suspects. With `all_nodes`, one more round follows: every node not excluded at once
// (fabric_congestion.h), judged on its own and never excluding anyone.
//
// A pure decider: whoever runs it (the coordinator) sends each request to the pair's two
// launchers, feeds back what they report, and calls expire() at the round's deadline. It
// knows no clock, socket or node name.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <optional>

#include "launcher/policy/fabric_congestion.h"
#include "launcher/policy/fabric_pairing.h"
#include "launcher/policy/fabric_verdict.h"

namespace pai::launcher {

/// A result that does not belong to the running round: its round or pair is not one asked
/// for, or it came in twice.
class FabricRoundsError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One measurement to make: pair `pair` of round `round`.
struct FabricRequest {
  int round = 1;
  int pair = 0;  ///< index within the round
  FabricPair nodes;
  bool operator==(const FabricRequest&) const = default;
};

/// The rounds of one fabric check over nodes 0..nodes-1.
class FabricRounds {
 public:
  /// Most pair rounds a check runs; the all-nodes round comes on top.
  static constexpr int kMaxRounds = 3;

  FabricRounds(int nodes, FabricThresholds thresholds, bool all_nodes = false);

  /// Round 1's requests; empty (and done()) with fewer than 2 nodes.
  std::vector<FabricRequest> start();

  /// A pair's figures (their first/second/round are taken from the request). When it was the
  /// round's last, returns the next round's requests (empty when the check is over). Throws
  /// FabricRoundsError for a round or pair not outstanding.
  std::vector<FabricRequest> result(int round, int pair, FabricPairResult figures);

  /// The round's deadline passed: every outstanding pair fails with `why`; returns the next
  /// round's requests as result() does.
  std::vector<FabricRequest> expire(const std::string& why);

  bool done() const { return done_; }
  /// The running round (1..4), or the last one once done.
  int round() const { return round_; }
  /// The number of the all-nodes round once it began, else 0.
  int all_nodes_round() const { return all_nodes_round_; }
  /// The all-nodes round's finding, once it is over.
  const std::optional<FabricCongestion>& congestion() const { return congestion_; }
  /// The pairs of the running round not reported yet.
  std::vector<FabricRequest> outstanding() const;
  /// Every result of the pair rounds so far, in the order of their rounds and pairs (the
  /// all-nodes round's are in congestion()).
  const std::vector<FabricPairResult>& results() const { return results_; }
  /// The verdict over results().
  const FabricVerdict& verdict() const { return verdict_; }
  /// Nodes the job should not use: bad nodes, and once done the suspects that no round
  /// could clear (with 2 nodes a failed pair cannot say which end is bad), in node order.
  std::vector<int> excluded() const;

 private:
  std::vector<FabricRequest> begin(std::vector<FabricPair> pairs);
  std::vector<FabricRequest> round_over();

  int nodes_;
  FabricThresholds thresholds_;
  bool all_nodes_ = false;
  int round_ = 0;
  bool done_ = false;
  bool pairs_done_ = false;  // the pair rounds gave their final verdict
  int all_nodes_round_ = 0;
  std::optional<FabricCongestion> congestion_;
  std::vector<FabricRequest> requests_;          // the running round's
  std::vector<bool> reported_;                   // by request
  std::vector<FabricPairResult> round_results_;  // by request
  std::vector<FabricPairResult> results_;
  FabricVerdict verdict_;
};

/// The per-pair table for the journal's reader and the terminal: a header and one line per
/// result, "round  pair  Gbit/s  latency  verdict", with `names` naming the nodes by index.
std::vector<std::string> fabric_table(const std::vector<FabricPairResult>& results,
                                      const FabricVerdict& verdict,
                                      const std::vector<std::string>& names);

}  // namespace pai::launcher
