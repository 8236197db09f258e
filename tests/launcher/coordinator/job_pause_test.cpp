#include "launcher/coordinator/job_pause.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace job_pause_test {

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::time_point{} + 1h;

}  // namespace

TEST_CASE("a pause marks the running instances - a resume hands them back once") {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{}, kT0);
  std::vector<Action> out;
  state.out = &out;
  InstanceRuns runs(state.instances);
  runs.set_run(0, Run::Running);
  runs.set_run(2, Run::Running);
  JobPause pause(state, runs);

  const ControlAnswer paused = pause.pause("alice");
  CHECK(paused.ok);
  CHECK(paused.text == "paused by alice: stopping 2 instances");
  CHECK(pause.paused());
  CHECK(state.instances[0].paused);
  CHECK_FALSE(state.instances[1].paused);
  CHECK(state.instances[2].paused);
  // No node is connected here: nothing could be stopped, so nothing is stopping.
  CHECK(runs.stopping() == 0);
  CHECK(state.instances[0].run == Run::Running);

  REQUIRE(out.size() == 1);
  const auto* record = std::get_if<Record>(&out[0]);
  REQUIRE(record != nullptr);
  CHECK(record->kind == "paused");
  CHECK(record->fields.at("by") == "alice");
  CHECK(record->fields.at("instances") == 2);

  const ControlAnswer again = pause.pause("bob");
  CHECK_FALSE(again.ok);
  CHECK(again.text == "the job is already paused");

  std::vector<int> starting;
  const ControlAnswer resumed = pause.resume("bob", starting);
  CHECK(resumed.ok);
  CHECK(resumed.text == "resumed by bob: starting 2 instances");
  CHECK(starting == std::vector<int>{0, 2});
  CHECK_FALSE(state.instances[0].paused);
  CHECK(state.instances[0].resumed == 1);
  CHECK(state.instances[1].resumed == 0);

  starting.clear();
  const ControlAnswer not_paused = pause.resume("bob", starting);
  CHECK_FALSE(not_paused.ok);
  CHECK(not_paused.text == "the job is not paused");
  CHECK(starting.empty());
}

}  // namespace job_pause_test
