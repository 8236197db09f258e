#include "launcher/coordinator/instance_runs.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace instance_runs_test {

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::time_point{} + 1h;

}  // namespace

TEST_CASE("instance runs count the instances stopping and pending as their state changes") {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{}, kT0);
  InstanceRuns runs(state.instances);
  runs.set_run(0, Run::Stopping);
  runs.set_run(1, Run::Stopping);
  runs.set_run(1, Run::Stopping);  // no change: counted once
  CHECK(runs.stopping() == 2);
  runs.set_run(0, Run::Stopped);
  CHECK(runs.stopping() == 1);
  CHECK(state.instances[0].run == Run::Stopped);

  runs.set_pending(2, true);
  runs.set_pending(2, true);
  runs.set_pending(0, true);
  CHECK(runs.pending() == 2);
  CHECK(state.instances[2].start_pending);
  runs.set_pending(2, false);
  CHECK(runs.pending() == 1);
  CHECK_FALSE(state.instances[2].start_pending);
}

TEST_CASE("backoffs end in the order they are due - and a moved or cleared one is forgotten") {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{}, kT0);
  InstanceRuns runs(state.instances);
  CHECK_FALSE(runs.backing_off());
  CHECK_FALSE(runs.next_backoff().has_value());
  runs.set_backoff(0, kT0 + 10s);
  runs.set_backoff(1, kT0 + 5s);
  runs.set_backoff(2, kT0 + 7s);
  runs.set_backoff(2, kT0 + 20s);  // moved: its old due time is gone
  CHECK(state.instances[2].backoff_until == kT0 + 20s);
  CHECK(runs.next_backoff() == kT0 + 5s);
  CHECK_FALSE(runs.take_elapsed_backoff(kT0 + 4s).has_value());
  CHECK(runs.take_elapsed_backoff(kT0 + 10s) == 1);
  CHECK_FALSE(state.instances[1].backoff_until.has_value());
  CHECK(runs.take_elapsed_backoff(kT0 + 10s) == 0);
  CHECK_FALSE(runs.take_elapsed_backoff(kT0 + 10s).has_value());
  runs.set_backoff(2, std::nullopt);
  CHECK_FALSE(runs.backing_off());
  CHECK_FALSE(runs.take_elapsed_backoff(kT0 + 24h).has_value());
}

}  // namespace instance_runs_test
