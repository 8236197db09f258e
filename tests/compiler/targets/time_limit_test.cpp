#include "compiler/targets/time_limit.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace time_limit_test {

using pai::scheduler_deadline_seconds;
using pai::slurm_time;

TEST_CASE("the scheduler's deadline comes after pai's stop at the time limit") {
  pai::Plan plan = pai::testing::make_test_plan(2, 1);
  CHECK(scheduler_deadline_seconds(plan) == 0);  // no limit: none
  plan.time_limit_seconds = 4 * 3600;
  plan.fault_tolerance.grace_period_seconds = 30;
  plan.fault_tolerance.checkpoint_wait_seconds = 60;
  CHECK(scheduler_deadline_seconds(plan) == 4 * 3600 + 30 + 60 + 60);
}

TEST_CASE("Slurm's --time is D-HH:MM:SS in whole minutes, rounded up") {
  CHECK(slurm_time(60) == "0-00:01:00");
  CHECK(slurm_time(61) == "0-00:02:00");
  CHECK(slurm_time(4 * 3600 + 150) == "0-04:03:00");
  CHECK(slurm_time(3 * 86400 + 3600) == "3-01:00:00");
  CHECK(slurm_time(365LL * 86400 + 3600) == "365-01:00:00");
}

}  // namespace time_limit_test
