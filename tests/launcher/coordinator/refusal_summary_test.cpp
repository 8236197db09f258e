#include "launcher/coordinator/refusal_summary.h"

#include <catch2/catch.hpp>

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

TEST_CASE("the first refusal is reported at once and the rest once an interval") {
  RefusalSummary summary(1000ms);
  const Clock::time_point t0 = Clock::now();
  CHECK_FALSE(summary.next_due());
  CHECK(summary.due(t0).empty());

  auto first = summary.refused("more than 4 unauthenticated connections", t0);
  REQUIRE(first.size() == 1);
  CHECK(first[0].kind == "connections-refused");
  CHECK(first[0].fields ==
        Json{{"count", 1}, {"reason", "more than 4 unauthenticated connections"}});
  CHECK(first[0].line == "refused 1 connection: more than 4 unauthenticated connections");
  CHECK_FALSE(summary.next_due());

  for (int i = 0; i < 5; ++i) {
    CHECK(summary.refused("more than 4 unauthenticated connections", t0 + 10ms).empty());
  }
  CHECK(summary.refused("accept failed: Too many open files", t0 + 20ms).empty());
  REQUIRE(summary.next_due());
  CHECK(*summary.next_due() == t0 + 1000ms);
  CHECK(summary.due(t0 + 999ms).empty());

  auto later = summary.due(t0 + 1000ms);
  REQUIRE(later.size() == 2);
  CHECK(later[0].fields == Json{{"count", 1}, {"reason", "accept failed: Too many open files"}});
  CHECK(later[1].fields ==
        Json{{"count", 5}, {"reason", "more than 4 unauthenticated connections"}});
  CHECK(later[1].line == "refused 5 connections: more than 4 unauthenticated connections");
  CHECK_FALSE(summary.next_due());
  CHECK(summary.due(t0 + 5000ms).empty());

  // Quiet for an interval: the next refusal is reported at once again.
  CHECK(summary.refused("more than 4 unauthenticated connections", t0 + 2000ms).size() == 1);
}
