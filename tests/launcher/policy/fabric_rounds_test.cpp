#include "launcher/policy/fabric_rounds.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace fabric_rounds_test {

using namespace pai::launcher;

FabricPairResult figures_of(double gbps, const std::string& error = {}) {
  FabricPairResult r;
  r.gbps = gbps;
  r.latency_us = 40;
  r.error = error;
  return r;
}

/// Answers every request of a round with `gbps` unless a node of `slow` is in the pair (then
/// 1 Gbit/s); returns the next round's requests.
std::vector<FabricRequest> answer_round(FabricRounds& rounds,
                                        const std::vector<FabricRequest>& requests, int slow) {
  std::vector<FabricRequest> next;
  for (const FabricRequest& q : requests) {
    const bool bad = q.nodes.first == slow || q.nodes.second == slow;
    next = rounds.result(q.round, q.pair, figures_of(bad ? 1 : 10));
  }
  return next;
}

FabricThresholds floor_5() {
  FabricThresholds t;
  t.floor_gbps = 5;
  return t;
}

TEST_CASE("fabric rounds: a healthy fabric is done after 2 rounds - nothing excluded") {
  FabricRounds rounds(4, floor_5());
  const auto first = rounds.start();
  REQUIRE(first == std::vector<FabricRequest>{{1, 0, {0, 1}}, {1, 1, {2, 3}}});
  CHECK(rounds.result(1, 0, figures_of(10)).empty());  // the round is not over yet
  CHECK(rounds.outstanding() == std::vector<FabricRequest>{{1, 1, {2, 3}}});
  const auto second = rounds.result(1, 1, figures_of(10));
  REQUIRE(second.size() == 2);
  CHECK(second[0].round == 2);
  CHECK(answer_round(rounds, second, -1).empty());
  CHECK(rounds.done());
  CHECK(rounds.round() == 2);
  CHECK(rounds.results().size() == 4);
  CHECK(rounds.verdict().healthy());
  CHECK(rounds.excluded().empty());
}

TEST_CASE("fabric rounds: the all-nodes round follows the pair rounds, without the excluded") {
  FabricRounds rounds(5, floor_5(), true);
  auto next = rounds.start();
  std::vector<FabricRequest> last;
  while (!next.empty()) {
    last = next;
    next = answer_round(rounds, next, 2);
  }
  CHECK(rounds.done());
  REQUIRE(rounds.all_nodes_round() == rounds.round());
  CHECK(rounds.all_nodes_round() >= 3);
  // Node 2 was excluded by the pair rounds: the rest pair across their halves, 0-3 and 1-4.
  CHECK(rounds.excluded() == std::vector<int>{2});
  REQUIRE(last.size() == 2);
  CHECK(last[0].nodes == FabricPair{0, 3});
  CHECK(last[1].nodes == FabricPair{1, 4});
  // Its results judge congestion only: the pair rounds' verdict and results are unchanged.
  REQUIRE(rounds.congestion().has_value());
  CHECK(rounds.congestion()->results.size() == 2);
  CHECK_FALSE(rounds.congestion()->congested());
  for (const FabricPairResult& r : rounds.results()) CHECK(r.round < rounds.all_nodes_round());
}

TEST_CASE("fabric rounds: without all_nodes there is no all-nodes round") {
  FabricRounds rounds(4, floor_5());
  auto next = rounds.start();
  while (!next.empty()) next = answer_round(rounds, next, -1);
  CHECK(rounds.all_nodes_round() == 0);
  CHECK_FALSE(rounds.congestion().has_value());
}

TEST_CASE("fabric rounds: a slow node is excluded") {
  FabricRounds rounds(4, floor_5());
  auto next = rounds.start();
  while (!next.empty()) next = answer_round(rounds, next, 2);
  CHECK(rounds.done());
  CHECK(rounds.round() <= FabricRounds::kMaxRounds);
  CHECK(rounds.excluded() == std::vector<int>{2});
  REQUIRE(rounds.verdict().bad_nodes.size() == 1);
  CHECK(rounds.verdict().bad_nodes[0].node == 2);
}

TEST_CASE("fabric rounds: pairs that never report fail at the deadline") {
  FabricRounds rounds(3, {});
  const auto first = rounds.start();
  REQUIRE(first == std::vector<FabricRequest>{{1, 0, {0, 1}}});
  const auto second = rounds.expire("no report within 15s");
  REQUIRE(!second.empty());
  CHECK(rounds.results().at(0).error == "no report within 15s");
  // Node 2 passes with both: 0 and 1 are cleared and their pair is a bad link.
  auto next = second;
  while (!next.empty()) {
    std::vector<FabricRequest> after;
    for (const FabricRequest& q : next) after = rounds.result(q.round, q.pair, figures_of(10));
    next = after;
  }
  CHECK(rounds.done());
  CHECK(rounds.verdict().bad_links == std::vector<FabricBadLink>{{0, 1}});
  CHECK(rounds.excluded().empty());
}

TEST_CASE("fabric rounds: with 2 nodes a failed pair excludes both ends") {
  FabricRounds rounds(2, {});
  rounds.start();
  CHECK(rounds.result(1, 0, figures_of(0, "connection refused")).empty());
  CHECK(rounds.done());
  CHECK(rounds.round() == 1);
  CHECK(rounds.excluded() == std::vector<int>{0, 1});
}

TEST_CASE("fabric rounds: fewer than 2 nodes - nothing to measure") {
  FabricRounds rounds(1, {});
  CHECK(rounds.start().empty());
  CHECK(rounds.done());
  CHECK(rounds.verdict().healthy());
}

TEST_CASE("fabric rounds: a result not asked for or sent twice is refused") {
  FabricRounds rounds(4, {});
  rounds.start();
  CHECK_THROWS_WITH(rounds.result(2, 0, figures_of(10)),
                    "round 2 pair 0 was not asked for (running round 1)");
  CHECK_THROWS_WITH(rounds.result(1, 2, figures_of(10)),
                    "round 1 pair 2 was not asked for (running round 1)");
  CHECK_THROWS_WITH(rounds.result(1, -1, figures_of(10)),
                    "round 1 pair -1 was not asked for (running round 1)");
  rounds.result(1, 0, figures_of(10));
  CHECK_THROWS_WITH(rounds.result(1, 0, figures_of(10)), "round 1 pair 0 was reported twice");
  CHECK_THROWS_WITH(rounds.start(), "the fabric check already started");
}

TEST_CASE("fabric rounds: the table names pairs, figures and verdicts") {
  std::vector<FabricPairResult> results(2);
  results[0] = {0, 1, 1, "", 9.5, 42};
  results[1] = {2, 3, 1, "timed out after 15s", 0, 0};
  const FabricVerdict v = judge_fabric(results, {});
  CHECK(fabric_table(results, v, {"gpu-1", "gpu-2", "gpu-3", "gpu-4"}) ==
        std::vector<std::string>{
            "round  pair             Gbit/s  latency  verdict",
            "1      gpu-1 <-> gpu-2    9.50     42us  ok",
            "1      gpu-3 <-> gpu-4       -        -  FAIL: timed out after 15s",
        });
}

TEST_CASE("fabric rounds: the table shows the NCCL bus bandwidth where a pair ran it") {
  std::vector<FabricPairResult> results(3);
  results[0] = {0, 1, 1, "", 9.5, 42, 45.25};
  results[1] = {2, 3, 1, "gpu-4: NCCL engine: no NCCL (libnccl.so.2: not found)", 0, 0};
  results[2] = {4, 5, 1, "", 9.0, 40};
  const FabricVerdict v = judge_fabric(results, {});
  CHECK(fabric_table(results, v, {"gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6"}) ==
        std::vector<std::string>{
            "round  pair             Gbit/s  latency  NCCL GB/s  verdict",
            "1      gpu-1 <-> gpu-2    9.50     42us       45.2  ok",
            "1      gpu-3 <-> gpu-4       -        -          -  FAIL: gpu-4: NCCL engine: no NCCL "
            "(libnccl.so.2: not found)",
            "1      gpu-5 <-> gpu-6    9.00     40us          -  ok",
        });
}

}  // namespace fabric_rounds_test
