#include "launcher/policy/fabric_congestion.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace fabric_congestion_test {

using namespace pai::launcher;

FabricPairResult pair(int first, int second, double gbps, int round = 1,
                      const std::string& error = {}) {
  FabricPairResult r;
  r.first = first;
  r.second = second;
  r.round = round;
  r.gbps = gbps;
  r.error = error;
  return r;
}

TEST_CASE("fabric congestion: the all-nodes round pairs each node with the one half away") {
  CHECK(fabric_all_nodes_round({0, 1, 2, 3}) == std::vector<FabricPair>{{0, 2}, {1, 3}});
  // An excluded node is not in the list; an odd last one sits out.
  CHECK(fabric_all_nodes_round({0, 1, 3, 4, 5}) == std::vector<FabricPair>{{0, 3}, {1, 4}});
  CHECK(fabric_all_nodes_round({7}).empty());
  CHECK(fabric_all_nodes_round({}).empty());
}

TEST_CASE("fabric congestion: pairs far below what their nodes reached alone are named") {
  // The pair rounds: every pair at 10 Gbit/s but node 3's, at 6. What a node reached is the
  // median of its pairs: 10, 8, 8 and 6.
  const std::vector<FabricPairResult> pairs = {pair(0, 1, 10), pair(2, 3, 6), pair(0, 2, 10, 2),
                                               pair(1, 3, 6, 2)};
  const FabricVerdict verdict = judge_fabric(pairs, FabricThresholds{});
  // Across the halves at once: 0-2 at 9 (of 8), 1-3 at 2.4 of the 6 node 3 reached (40%).
  FabricCongestion c = judge_congestion({pair(0, 2, 9, 3), pair(1, 3, 2.4, 3)}, pairs, verdict);
  CHECK(c.expected_gbps == std::vector<double>{8, 6});
  CHECK(c.slow == std::vector<int>{1});
  CHECK(c.median_gbps == Approx(5.7));
  CHECK(c.median_ratio == Approx((9.0 / 8 + 0.4) / 2));
  CHECK_FALSE(c.congested());
  const std::vector<std::string> names = {"n0", "n1", "n2", "n3"};
  CHECK(congestion_line(c, names) ==
        "all nodes at once: 2 pairs, median 5.70 Gbit/s, 76% of what their nodes reached in "
        "pairs; slow under load: n1 <-> n3 (2.40 of 6.00)");
  // Under half at the median: congested; an error is slow whatever the figures.
  c = judge_congestion({pair(0, 2, 3, 3), pair(1, 3, 0, 3, "n3: timed out")}, pairs, verdict);
  CHECK(c.congested());
  CHECK(c.median_ratio == Approx(0.375));
  CHECK(c.slow == std::vector<int>{0, 1});
  CHECK(congestion_line(c, names) ==
        "all nodes at once: 2 pairs, median 3.00 Gbit/s, 38% of what their nodes reached in "
        "pairs: the fabric is congested; slow under load: n0 <-> n2 (3.00 of 8.00), n1 <-> n3 "
        "(n3: timed out)");
  // At 60%, noise of CPU-bound links: neither slow nor congested.
  c = judge_congestion({pair(0, 2, 4.8, 3), pair(1, 3, 3.6, 3)}, pairs, verdict);
  CHECK(c.slow.empty());
  CHECK_FALSE(c.congested());
}

TEST_CASE("fabric congestion: a node that never passed a pair is not compared") {
  const std::vector<FabricPairResult> pairs = {pair(0, 1, 10), pair(2, 3, 0, 1, "refused")};
  const FabricVerdict verdict = judge_fabric(pairs, FabricThresholds{});
  const FabricCongestion c = judge_congestion({pair(0, 2, 1, 2)}, pairs, verdict);
  CHECK(c.expected_gbps == std::vector<double>{0});
  CHECK(c.median_ratio == 0);
  CHECK_FALSE(c.congested());
  CHECK(c.slow.empty());
}

}  // namespace fabric_congestion_test
