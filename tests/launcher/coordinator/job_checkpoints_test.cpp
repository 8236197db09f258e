#include "launcher/coordinator/job_checkpoints.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "machine_harness.h"

namespace job_checkpoints_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

// 128 nodes of 237 days, a minute's save: the planner's 4342 s (checkpoint_planner_test).
pai::CheckpointPlan planned() {
  pai::CheckpointPlan c;
  c.job_mtbf_seconds = 159975;
  c.interval_seconds = 4342;
  return c;
}

pai::Plan job_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  plan.fault_tolerance.checkpoint_plan = planned();
  return plan;
}

GoodputReading saves(std::int64_t count, double cost) {
  GoodputReading reading;
  reading.checkpoint_saves = count;
  reading.checkpoint_cost_seconds = cost;
  return reading;
}

}  // namespace

TEST_CASE("JobCheckpoints: the plan's interval until a measured save moves it by a tenth") {
  const pai::CheckpointPlan plan = planned();
  JobCheckpoints c(plan);
  CHECK(c.advice() == pai::net::CheckpointAdvice{4342, 0});
  CHECK_FALSE(c.changed());
  CHECK_FALSE(c.measured(15, 0));  // no save yet
  // 55 s a save: Daly's interval moves by under a tenth (4152 s): nothing sent.
  CHECK_FALSE(c.measured(55, 3));
  CHECK(c.advice().interval_seconds == 4342);
  // 15 s a save: sqrt(2 x 15 x 159975) (1 + ...) - 15.
  const auto refined = c.measured(15, 4);
  REQUIRE(refined);
  CHECK(refined->seconds == 2181);
  CHECK(refined->previous_seconds == 4342);
  CHECK(refined->saves == 4);
  CHECK(refined->cost_seconds == 15);
  CHECK(refined->expected_ettr == Approx(0.98268).epsilon(1e-4));  // the plan's 10 min restarts
  CHECK(c.advice().interval_seconds == 2181);
  CHECK(c.changed());
  // The same measure again: no change.
  CHECK_FALSE(c.measured(15, 5));
}

TEST_CASE("JobCheckpoints: garbage measures and an unplanned plan change nothing") {
  const pai::CheckpointPlan plan = planned();
  JobCheckpoints c(plan);
  for (double cost : {std::nan(""), -1.0, std::numeric_limits<double>::infinity()}) {
    CHECK_FALSE(c.measured(cost, 3));
  }
  CHECK(c.advice().interval_seconds == 4342);
  // A save dearer than twice the MTBF: the interval is the MTBF (Daly), within bounds.
  const auto huge = c.measured(1e12, 1);
  REQUIRE(huge);
  CHECK(huge->seconds == 159975);

  const pai::CheckpointPlan unplanned;  // an older plan: interval 0
  JobCheckpoints none(unplanned);
  CHECK_FALSE(none.measured(15, 4));
  CHECK(none.advice().interval_seconds == 0);
}

TEST_CASE("JobCheckpoints: checkpoint-now requests are numbered from 1") {
  const pai::CheckpointPlan plan = planned();
  JobCheckpoints c(plan);
  CHECK(c.request() == 1);
  CHECK(c.changed());
  CHECK(c.request() == 2);
  CHECK(c.advice() == pai::net::CheckpointAdvice{4342, 2});
}

TEST_CASE("a goodput reading with faster saves sends the refined interval to the running nodes") {
  MachineHarness h(job_plan());
  h.join_all();
  h.clear();
  h.take(h.machine.goodput(saves(4, 15)));
  const auto records = h.records("checkpoint-interval");
  REQUIRE(records.size() == 1);
  CHECK(records[0].line ==
        "checkpoint interval 36m 21s (was 1h 12m): a save stalls 15.0 s "
        "(mean of 4)");
  CHECK(records[0].fields.at("seconds") == 2181);
  CHECK(records[0].fields.at("previousSeconds") == 4342);
  for (int i = 0; i < 3; ++i) {
    CHECK(h.only("node-" + std::to_string(i), "checkpoint-advice") ==
          Json{{"type", "checkpoint-advice"}, {"intervalSeconds", 2181}, {"request", 0}});
  }
  // The same reading again sends nothing.
  h.clear();
  h.take(h.machine.goodput(saves(4, 15)));
  CHECK(h.sent("node-0", "checkpoint-advice").empty());
  CHECK(h.records("checkpoint-interval").empty());

  // A restart's start carries the advice first: a spare that takes an instance knows it too.
  h.clear();
  h.receive("node-1", exited(1, 0, 137, 0, true, "exit code 137"));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  h.advance(std::chrono::seconds(60));
  for (const std::string node : {"node-0", "node-1", "node-2"}) h.checks(node);
  std::vector<std::string> order;
  for (const Action& a : h.log) {
    if (const auto* s = std::get_if<Send>(&a); s && s->session == h.sessions.at("node-1")) {
      order.push_back(s->message.value("type", ""));
    }
  }
  const auto advice = std::find(order.begin(), order.end(), "checkpoint-advice");
  const auto start = std::find(order.begin(), order.end(), "start");
  REQUIRE(start != order.end());
  CHECK(advice < start);
}

TEST_CASE("a goodput reading before the job runs, or without saves, sends nothing") {
  MachineHarness h(job_plan());
  h.join("node-0");
  h.clear();
  h.take(h.machine.goodput(saves(4, 15)));
  CHECK(h.records("checkpoint-interval").empty());
  h.join("node-1");
  h.join("node-2");
  h.clear();
  h.take(h.machine.goodput(saves(0, 0)));
  CHECK(h.sent("node-0", "checkpoint-advice").empty());
  // No start carries advice while it is the plan's.
  CHECK(h.sent("node-0", "start").empty());
}

}  // namespace job_checkpoints_test
