#include "launcher/policy/fabric_verdict.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace fabric_verdict_test {

using namespace pai::launcher;

FabricPairResult measured_pair(int a, int b, double gbps, int round = 1) {
  FabricPairResult r;
  r.first = a;
  r.second = b;
  r.round = round;
  r.gbps = gbps;
  r.latency_us = 50;
  return r;
}

FabricPairResult broken_pair(int a, int b, const std::string& error, int round = 1) {
  FabricPairResult r = measured_pair(a, b, 0, round);
  r.error = error;
  return r;
}

TEST_CASE("fabric verdict: pairs that agree pass - no finding") {
  const std::vector<FabricPairResult> results{
      measured_pair(0, 1, 9.8),     measured_pair(2, 3, 10.1),   measured_pair(4, 5, 10.0),
      measured_pair(1, 2, 10.0, 2), measured_pair(3, 4, 9.9, 2), measured_pair(5, 0, 8.0, 2)};
  const FabricVerdict v = judge_fabric(results, {});
  CHECK(v.healthy());
  CHECK(v.resolved());
  CHECK(v.bad_nodes.empty());
  CHECK(v.bad_links.empty());
  CHECK(v.median_gbps == Approx(9.95));
  // 3 MAD (0.3) would put the floor at 9.65 and fail 9.8 and 8.0; the minimum spread of half
  // the median keeps noise from failing a pair.
  CHECK(v.relative_floor_gbps == Approx(9.95 * 0.5));
  CHECK(fabric_findings(v, {}).empty());
}

TEST_CASE("fabric verdict: an error, the absolute floor and the relative floor each fail a pair") {
  const std::vector<FabricPairResult> results{
      measured_pair(0, 1, 10),
      measured_pair(2, 3, 10.2),
      measured_pair(4, 5, 9.9),
      measured_pair(6, 7, 10.1),
      measured_pair(8, 9, 3.0),
      measured_pair(12, 13, 10.0),
      broken_pair(10, 11, "connect to 10.0.0.12:20001: connection refused")};
  FabricThresholds t;
  t.floor_gbps = 5;
  const FabricVerdict v = judge_fabric(results, t);
  REQUIRE(v.pairs.size() == 7);
  CHECK_FALSE(v.pairs[0].failed);
  CHECK(v.pairs[4].failed);
  CHECK(v.pairs[4].reason == "3 Gbit/s below the floor of 5");
  CHECK(v.pairs[6].failed);
  CHECK(v.pairs[6].reason == "connect to 10.0.0.12:20001: connection refused");

  // Without the absolute floor, 3 is far below median - 3 MAD.
  const FabricVerdict relative = judge_fabric(results, {});
  CHECK(relative.median_gbps == Approx(10));
  CHECK(relative.pairs[4].failed);
  CHECK(relative.pairs[4].reason == "3 Gbit/s below the median of 10 minus 3 MAD (5)");
}

// A pair that also ran the NCCL engine: TCP `gbps`, bus bandwidth `bus` GB/s.
FabricPairResult nccl_pair(int a, int b, double gbps, double bus, int round = 1) {
  FabricPairResult r = measured_pair(a, b, gbps, round);
  r.bus_gbs = bus;
  return r;
}

TEST_CASE("fabric verdict: the NCCL bus bandwidth has floors of its own") {
  // Every TCP figure agrees; pair 4-5's NCCL figure is a third of the others'.
  const std::vector<FabricPairResult> results{
      nccl_pair(0, 1, 10, 45),      nccl_pair(2, 3, 10, 44),     nccl_pair(4, 5, 10, 15),
      nccl_pair(1, 2, 10, 46, 2),   nccl_pair(3, 4, 10, 45, 2),  nccl_pair(5, 0, 10, 44.5, 2)};
  const FabricVerdict relative = judge_fabric(results, {});
  CHECK(relative.median_gbps == Approx(10));
  CHECK(relative.median_bus_gbs == Approx(44.75));
  CHECK(relative.relative_floor_bus_gbs == Approx(44.75 / 2));
  CHECK(relative.pairs[2].failed);
  CHECK(relative.pairs[2].reason ==
        "15 GB/s NCCL bus bandwidth below the median of 44.8 minus 3 MAD (22.4)");
  for (std::size_t k : {0, 1, 3, 4, 5}) CHECK_FALSE(relative.pairs[k].failed);

  FabricThresholds t;
  t.floor_bus_gbs = 44.8;
  const FabricVerdict floor = judge_fabric(results, t);
  CHECK(floor.pairs[1].reason == "44 GB/s NCCL bus bandwidth below the floor of 44.8");
  CHECK(floor.pairs[5].failed);
  CHECK_FALSE(floor.pairs[0].failed);
}

TEST_CASE("fabric verdict: a pair failing TCP names TCP - pairs without NCCL are not judged on it") {
  FabricThresholds t;
  t.floor_gbps = 5;
  t.floor_bus_gbs = 40;
  const std::vector<FabricPairResult> results{nccl_pair(0, 1, 3, 10), measured_pair(2, 3, 10)};
  const FabricVerdict v = judge_fabric(results, t);
  CHECK(v.pairs[0].reason == "3 Gbit/s below the floor of 5");
  CHECK_FALSE(v.pairs[1].failed);
  CHECK(v.median_bus_gbs == Approx(10));
}

TEST_CASE("fabric verdict: too few pairs for a median - only the absolute floor applies") {
  const std::vector<FabricPairResult> results{measured_pair(0, 1, 10), measured_pair(2, 3, 1)};
  CHECK(judge_fabric(results, {}).healthy());
  CHECK(judge_fabric(results, {}).relative_floor_gbps == 0);
  FabricThresholds t;
  t.floor_gbps = 2;
  CHECK_FALSE(judge_fabric(results, t).healthy());
}

TEST_CASE("fabric verdict: a node failing with two partners that passed elsewhere is bad") {
  // Node 0 is slow with 1 (round 1) and with 3 (round 2); 1 and 3 passed with 2.
  const std::vector<FabricPairResult> results{measured_pair(0, 1, 1), measured_pair(2, 3, 10),
                                              measured_pair(3, 0, 1, 2),
                                              measured_pair(2, 1, 10, 2)};
  FabricThresholds t;
  t.floor_gbps = 5;
  const FabricVerdict v = judge_fabric(results, t);
  REQUIRE(v.bad_nodes.size() == 1);
  CHECK(v.bad_nodes[0] == FabricBadNode{0, {1, 3}});
  CHECK(v.bad_links.empty());
  CHECK(v.resolved());
  CHECK(fabric_findings(v, {"gpu-a", "gpu-b", "gpu-c", "gpu-d"}) ==
        std::vector<std::string>{"gpu-a is bad: failed with gpu-b and gpu-d, which passed with "
                                 "others"});
}

TEST_CASE("fabric verdict: a pair failing only together is a bad link naming both ends") {
  const std::vector<FabricPairResult> results{broken_pair(0, 1, "timed out after 15s"),
                                              measured_pair(2, 3, 10), measured_pair(3, 0, 10, 2),
                                              measured_pair(2, 1, 10, 2)};
  const FabricVerdict v = judge_fabric(results, {});
  CHECK(v.bad_nodes.empty());
  REQUIRE(v.bad_links.size() == 1);
  CHECK(v.bad_links[0] == FabricBadLink{0, 1});
  CHECK(v.resolved());
  CHECK(fabric_findings(v, {"a", "b", "c", "d"}) ==
        std::vector<std::string>{"link a <-> b is bad: both ends passed with other partners"});
}

TEST_CASE("fabric verdict: a failed end that never passed is a suspect until cleared") {
  // Node 2 sat out round 1 and failed with 0 in round 2: node or link?
  const std::vector<FabricPairResult> results{measured_pair(0, 1, 10),
                                              broken_pair(0, 2, "refused", 2)};
  const FabricVerdict v = judge_fabric(results, {});
  CHECK_FALSE(v.resolved());
  CHECK(v.suspects == std::vector<int>{2});
  CHECK(v.bad_nodes.empty());
  CHECK(v.bad_links.empty());
  CHECK(fabric_findings(v, {}) ==
        std::vector<std::string>{
            "node 2 is suspect: it failed and never passed with a partner that could clear it"});
  CHECK(fabric_cleared(results, v, 0));
  CHECK_FALSE(fabric_cleared(results, v, 2));
}

TEST_CASE("fabric verdict: failures with a bad node do not make its partner bad") {
  // 0 is bad (fails with 1 and 2, which pass elsewhere); 1 failed only with 0.
  const std::vector<FabricPairResult> results{
      broken_pair(0, 1, "timeout"),    measured_pair(2, 3, 10),    measured_pair(4, 5, 10),
      broken_pair(0, 2, "timeout", 2), measured_pair(1, 4, 10, 2), measured_pair(3, 5, 10, 2)};
  const FabricVerdict v = judge_fabric(results, {});
  REQUIRE(v.bad_nodes.size() == 1);
  CHECK(v.bad_nodes[0].node == 0);
  CHECK(v.bad_links.empty());
  CHECK(v.suspects.empty());
}

TEST_CASE("fabric verdict: no results - healthy and nothing measured") {
  const FabricVerdict v = judge_fabric({}, {});
  CHECK(v.healthy());
  CHECK(v.median_gbps == 0);
  CHECK(v.relative_floor_gbps == 0);
}

}  // namespace fabric_verdict_test
