#include "launcher/coordinator/restart_fabric.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace restart_fabric_test {

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::time_point{} + 1h;

pai::Plan fabric_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.mode = pai::FaultToleranceMode::Sync;
  plan.sanity_check.enabled = true;
  plan.sanity_check.fabric.enabled = true;
  plan.sanity_check.fabric.before_restarts = true;
  return plan;
}

}  // namespace

TEST_CASE("the check before restarts is wanted only after the first start - in sync mode") {
  pai::Plan plan = fabric_plan();
  SECTION("wanted") {
    CoordinatorState state(plan, CoordinatorSettings{}, kT0);
    CHECK_FALSE(RestartFabric(state).wanted(false));
    CHECK(RestartFabric(state).wanted(true));
  }
  SECTION("async mode") {
    plan.fault_tolerance.mode = pai::FaultToleranceMode::Async;
    CoordinatorState state(plan, CoordinatorSettings{}, kT0);
    CHECK_FALSE(RestartFabric(state).wanted(true));
  }
  SECTION("not before restarts") {
    plan.sanity_check.fabric.before_restarts = false;
    CoordinatorState state(plan, CoordinatorSettings{}, kT0);
    CHECK_FALSE(RestartFabric(state).wanted(true));
  }
  SECTION("checks off") {
    plan.sanity_check.enabled = false;
    CoordinatorState state(plan, CoordinatorSettings{}, kT0);
    CHECK_FALSE(RestartFabric(state).wanted(true));
  }
}

TEST_CASE("a check with fewer than two nodes to pair holds no start and leaves no result") {
  CoordinatorState state(fabric_plan(), CoordinatorSettings{}, kT0);
  std::vector<Action> out;
  state.out = &out;
  RestartFabric fabric(state);
  // No launcher is connected: nothing to pair, so the check is over as it starts.
  CHECK_FALSE(fabric.holds_starts(kT0, true));
  CHECK(fabric.running() == nullptr);
  CHECK_FALSE(fabric.take_result().has_value());
  CHECK_FALSE(fabric.next_deadline().has_value());
}

}  // namespace restart_fabric_test
