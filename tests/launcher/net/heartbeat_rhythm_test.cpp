#include "launcher/net/heartbeat_rhythm.h"

#include <catch2/catch.hpp>
#include <cstdint>

#include "support/plan_fixture.h"

namespace heartbeat_rhythm_test {

using namespace pai::net;

TEST_CASE("the coordinator beats every other interval up to 2,048 nodes") {
  CHECK(coordinator_beat_intervals(std::size_t{0}) == 2);
  CHECK(coordinator_beat_intervals(std::size_t{1}) == 2);
  CHECK(coordinator_beat_intervals(std::size_t{2048}) == 2);
  CHECK(coordinator_misses(std::size_t{2048}) == kHeartbeatMisses);
}

TEST_CASE("larger jobs get about 1,024 beats an interval, the wait growing alike") {
  CHECK(coordinator_beat_intervals(std::size_t{2049}) == 3);
  CHECK(coordinator_beat_intervals(std::size_t{4096}) == 4);
  CHECK(coordinator_beat_intervals(std::size_t{8192}) == 8);
  CHECK(coordinator_misses(std::size_t{8192}) == 11);
  CHECK(coordinator_beat_intervals(std::size_t{16384}) == 16);
  // A beat may always come 3 intervals late, whatever the size.
  for (std::size_t nodes : {1, 3000, 8192, 100000}) {
    CHECK(coordinator_misses(nodes) - coordinator_beat_intervals(nodes) == kCoordinatorBeatSlack);
  }
}

TEST_CASE("a huge node count does not wrap the period") {
  CHECK(coordinator_beat_intervals(SIZE_MAX) == 1 << 20);
  CHECK(coordinator_misses(SIZE_MAX) > coordinator_beat_intervals(SIZE_MAX));
}

TEST_CASE("a plan's launchers are its hosts and its spares") {
  pai::Plan plan = pai::testing::make_test_plan();  // 3 hosts and a spare
  CHECK(coordinator_beat_intervals(plan) == 2);
  plan.spares.resize(4096 - plan.hosts.size() + 1, plan.spares.front());
  CHECK(coordinator_beat_intervals(plan) == 5);
  CHECK(coordinator_misses(plan) == 8);
}

}  // namespace heartbeat_rhythm_test
