#include "launcher/coordinator/job_hang.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace job_hang_test {

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::time_point{} + 1h;

CoordinatorState running_state() {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{}, kT0);
  for (Instance& inst : state.instances) {
    inst.run = Run::Running;
    inst.heartbeat = InstanceHeartbeat{0, 60, kT0, {}, {}};
  }
  return state;
}

}  // namespace

TEST_CASE("the job hangs when every running instance is idle for its interval") {
  CoordinatorState state = running_state();
  state.instances[1].heartbeat->idle_ms = 30000;
  CHECK(next_job_hang_check(state) == kT0 + 60s);
  CHECK_FALSE(find_job_hang(state, kT0 + 59s).has_value());
  const auto hang = find_job_hang(state, kT0 + 60s);
  REQUIRE(hang.has_value());
  CHECK(hang->instance == 1);
  CHECK(hang->idle_seconds == 90);
}

TEST_CASE("finished instances do not keep a hang from being found") {
  CoordinatorState state = running_state();
  state.instances[2].run = Run::Succeeded;
  state.instances[2].heartbeat.reset();
  CHECK(find_job_hang(state, kT0 + 60s).has_value());
}

TEST_CASE("no hang while an instance lacks a heartbeat - restarts - or never hangs") {
  CoordinatorState state = running_state();
  SECTION("no heartbeat yet") { state.instances[0].heartbeat.reset(); }
  SECTION("backing off") { state.instances[0].backoff_until = kT0 + 10s; }
  SECTION("stopping") { state.instances[0].run = Run::Stopping; }
  SECTION("waiting for checks") { state.instances[0].start_pending = true; }
  SECTION("hang interval off") { state.instances[0].heartbeat->hang_interval_s = 0; }
  CHECK_FALSE(find_job_hang(state, kT0 + 24h).has_value());
  CHECK_FALSE(next_job_hang_check(state).has_value());
}

}  // namespace job_hang_test

namespace job_hang_test {

TEST_CASE("the hang watch walks on every tick but at most every 100 ms on messages") {
  CoordinatorState state = running_state();
  JobHangWatch watch;
  CHECK_FALSE(watch.check(state, kT0 + 1s, false).has_value());  // the first walk
  CHECK(watch.next_deadline() == kT0 + 60s);
  // A message 50 ms later is not walked for: the check is stale until the next walk is due.
  for (Instance& inst : state.instances) inst.heartbeat->idle_ms = 120000;
  CHECK_FALSE(watch.check(state, kT0 + 1050ms, false).has_value());
  CHECK(watch.next_deadline() == kT0 + 1100ms);
  // A tick walks at once and finds the instance idle past its interval.
  const auto hang = watch.check(state, kT0 + 1060ms, true);
  REQUIRE(hang.has_value());
  CHECK(hang->instance == 0);
  CHECK(hang->idle_seconds == 121);
}

TEST_CASE("the hang watch has no deadline while the job cannot hang") {
  CoordinatorState state = running_state();
  state.instances[1].run = Run::Stopping;
  JobHangWatch watch;
  CHECK_FALSE(watch.check(state, kT0 + 24h, true).has_value());
  CHECK_FALSE(watch.next_deadline().has_value());
}

}  // namespace job_hang_test
