#include "launcher/policy/fabric_pairing.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fabric_pairing_test {

using namespace pai::launcher;

/// A simulated fabric: healthy pairs measure about 10 Gbit/s (a little noise by pair), pairs
/// with a bad node 1 Gbit/s, pairs over a bad link time out.
struct SimulatedFabric {
  std::set<int> bad_nodes;
  std::set<std::pair<int, int>> bad_links;  ///< (low, high)

  FabricPairResult measure(const FabricPair& p, int round) const {
    FabricPairResult r;
    r.first = p.first;
    r.second = p.second;
    r.round = round;
    const std::pair<int, int> key{std::min(p.first, p.second), std::max(p.first, p.second)};
    if (bad_links.count(key) != 0) {
      r.error = "timed out";
    } else if (bad_nodes.count(p.first) != 0 || bad_nodes.count(p.second) != 0) {
      r.gbps = 1;
    } else {
      r.gbps = 9.5 + 0.1 * ((p.first * 7 + p.second * 3) % 10);
    }
    return r;
  }
};

/// Every round the check would run, and the verdict after the last.
struct Outcome {
  int rounds = 0;
  FabricVerdict verdict;
};

/// Each round's pairs must be disjoint and new; checked here so every scenario checks it.
void require_valid_round(int nodes, const std::vector<FabricPair>& round,
                         std::set<std::pair<int, int>>& met) {
  std::set<int> busy;
  for (const FabricPair& p : round) {
    REQUIRE(p.first != p.second);
    REQUIRE(p.first >= 0);
    REQUIRE(p.second < nodes);
    REQUIRE(busy.insert(p.first).second);
    REQUIRE(busy.insert(p.second).second);
    REQUIRE(met.insert({std::min(p.first, p.second), std::max(p.first, p.second)}).second);
  }
}

Outcome run_rounds(int nodes, const SimulatedFabric& fabric, const FabricThresholds& t) {
  Outcome out;
  std::vector<FabricPairResult> results;
  std::set<std::pair<int, int>> met;
  auto play = [&](const std::vector<FabricPair>& round) {
    require_valid_round(nodes, round, met);
    if (round.empty()) return;
    ++out.rounds;
    for (const FabricPair& p : round) results.push_back(fabric.measure(p, out.rounds));
    out.verdict = judge_fabric(results, t);
  };
  play(fabric_first_round(nodes));
  play(fabric_second_round(nodes, results, out.verdict));
  if (!out.verdict.resolved()) play(fabric_third_round(nodes, results, out.verdict));
  return out;
}

FabricThresholds floor_of(double gbps) {
  FabricThresholds t;
  t.floor_gbps = gbps;
  return t;
}

TEST_CASE("fabric pairing: round 1 pairs neighbours - an odd last node sits out") {
  CHECK(fabric_first_round(4) == std::vector<FabricPair>{{0, 1}, {2, 3}});
  CHECK(fabric_first_round(5) == std::vector<FabricPair>{{0, 1}, {2, 3}});
  CHECK(fabric_sitting_out(5, fabric_first_round(5)) == std::vector<int>{4});
  CHECK(fabric_first_round(1).empty());
  CHECK(fabric_first_round(0).empty());
}

TEST_CASE("fabric pairing: round 2 pairs the slowest with the fastest, never a pair again") {
  // Pair (2,3) was slow, (0,1) fast, (4,5) in between.
  std::vector<FabricPairResult> results(3);
  results[0] = {0, 1, 1, "", 10, 0};
  results[1] = {2, 3, 1, "", 4, 0};
  results[2] = {4, 5, 1, "", 7, 0};
  const FabricVerdict v = judge_fabric(results, {});
  // Sorted slowest first: 2, 3, 4, 5, 0, 1: 2 with 1, 3 with 0, and 4 with 5, which met in
  // round 1, so 4 and 2 swap partners.
  const std::vector<FabricPair> round = fabric_second_round(6, results, v);
  CHECK(round == std::vector<FabricPair>{{5, 2}, {0, 3}, {1, 4}});
  CHECK(fabric_sitting_out(6, round).empty());
}

TEST_CASE("fabric pairing: with 2 nodes there is no second pairing") {
  std::vector<FabricPairResult> results(1);
  results[0] = {0, 1, 1, "timed out", 0, 0};
  const FabricVerdict v = judge_fabric(results, {});
  CHECK(fabric_second_round(2, results, v).empty());
  CHECK(fabric_third_round(2, results, v).empty());
  CHECK(v.suspects == std::vector<int>{0, 1});
}

TEST_CASE(
    "fabric pairing: odd N - the node that sat out is paired in round 2, one that passed sits "
    "out") {
  std::vector<FabricPairResult> results(2);
  results[0] = {0, 1, 1, "", 10, 0};
  results[1] = {2, 3, 1, "", 9, 0};
  const FabricVerdict v = judge_fabric(results, {});
  const std::vector<FabricPair> round = fabric_second_round(5, results, v);
  // 4 (never measured) is the slowest; the fastest (1) sits out; 4 would meet 0 and 2 meet 3
  // again, so they swap.
  CHECK(round == std::vector<FabricPair>{{3, 4}, {0, 2}});
  CHECK(fabric_sitting_out(5, round) == std::vector<int>{1});
}

TEST_CASE("fabric pairing: a healthy fabric of any size passes in 2 rounds") {
  for (int nodes = 2; nodes <= 33; ++nodes) {
    INFO("nodes " << nodes);
    const auto out = run_rounds(nodes, SimulatedFabric{}, {});
    CHECK(out.rounds == (nodes == 2 ? 1 : 2));
    CHECK(out.verdict.healthy());
  }
}

TEST_CASE("fabric pairing: one bad node is named in at most 3 rounds - any N and position") {
  for (int nodes = 3; nodes <= 33; ++nodes) {
    for (int bad = 0; bad < nodes; ++bad) {
      INFO("nodes " << nodes << ", bad node " << bad);
      SimulatedFabric fabric;
      fabric.bad_nodes = {bad};
      const auto out = run_rounds(nodes, fabric, floor_of(5));
      CHECK(out.rounds <= 3);
      REQUIRE(out.verdict.bad_nodes.size() == 1);
      CHECK(out.verdict.bad_nodes[0].node == bad);
      CHECK(out.verdict.bad_links.empty());
      CHECK(out.verdict.suspects.empty());
    }
  }
}

TEST_CASE("fabric pairing: the relative rule alone names a slow node from 8 nodes up") {
  for (int nodes = 8; nodes <= 20; ++nodes) {
    for (int bad = 0; bad < nodes; ++bad) {
      INFO("nodes " << nodes << ", bad node " << bad);
      SimulatedFabric fabric;
      fabric.bad_nodes = {bad};
      const auto out = run_rounds(nodes, fabric, {});
      REQUIRE(out.verdict.bad_nodes.size() == 1);
      CHECK(out.verdict.bad_nodes[0].node == bad);
      CHECK(out.verdict.suspects.empty());
    }
  }
}

TEST_CASE("fabric pairing: one bad link is named with both ends in at most 3 rounds") {
  for (int nodes = 3; nodes <= 17; ++nodes) {
    for (int a = 0; a < nodes; ++a) {
      for (int b = a + 1; b < nodes; ++b) {
        INFO("nodes " << nodes << ", bad link " << a << "-" << b);
        SimulatedFabric fabric;
        fabric.bad_links = {{a, b}};
        const auto out = run_rounds(nodes, fabric, {});
        CHECK(out.rounds <= 3);
        CHECK(out.verdict.bad_nodes.empty());
        CHECK(out.verdict.suspects.empty());
        // A link that no round happened to measure is not a finding: nothing failed.
        if (!out.verdict.healthy()) {
          REQUIRE(out.verdict.bad_links.size() == 1);
          CHECK(out.verdict.bad_links[0] == FabricBadLink{a, b});
        }
      }
    }
  }
}

TEST_CASE("fabric pairing: two bad nodes are both named") {
  for (int nodes = 6; nodes <= 16; ++nodes) {
    for (int x = 0; x < nodes; ++x) {
      for (int y = x + 1; y < nodes; ++y) {
        INFO("nodes " << nodes << ", bad nodes " << x << " and " << y);
        SimulatedFabric fabric;
        fabric.bad_nodes = {x, y};
        const auto out = run_rounds(nodes, fabric, floor_of(5));
        CHECK(out.rounds <= 3);
        std::vector<int> named;
        for (const FabricBadNode& b : out.verdict.bad_nodes) named.push_back(b.node);
        CHECK(named == std::vector<int>{x, y});
        CHECK(out.verdict.bad_links.empty());
      }
    }
  }
}

TEST_CASE("fabric pairing: round 3 prefers a partner that passed, fastest first") {
  // 0-1 passed at 10, 2-3 at 12; 4 sat out and failed with 3 in round 2.
  std::vector<FabricPairResult> results(4);
  results[0] = {0, 1, 1, "", 10, 0};
  results[1] = {2, 3, 1, "", 12, 0};
  results[2] = {3, 4, 2, "timed out", 0, 0};
  results[3] = {0, 2, 2, "", 10, 0};
  const FabricVerdict v = judge_fabric(results, {});
  REQUIRE(v.suspects == std::vector<int>{4});
  CHECK(fabric_third_round(5, results, v) == std::vector<FabricPair>{{2, 4}});
}

}  // namespace fabric_pairing_test
