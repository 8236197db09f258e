#include "compiler/plan/checkpoint_planner.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "libpai/node_history.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace checkpoint_planner_test {

TEST_CASE("plan_checkpoints: the node MTBF over the job's nodes, spares aside") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.nodes = 128;
  plan.spares.resize(4);
  pai::plan_checkpoints(plan);
  const pai::CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  CHECK(c.node_mtbf_seconds == 237 * 86400);
  CHECK(c.job_mtbf_seconds == Approx(159975));
  CHECK(c.interval_seconds == 4342);
  CHECK(c.expected_ettr == Approx(0.969219).epsilon(1e-5));
  CHECK(pai::checkpoint_plan_line(c, plan.nodes) ==
        "checkpoint plan: every 1h 12m (expected ETTR 96.9%, job MTBF 1d 20h over 128 nodes)");
}

TEST_CASE("plan_checkpoints: at least a second between saves - the largest inputs stay finite") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.nodes = 1;
  pai::CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  c.checkpoint_cost_seconds = 0;
  c.restart_cost_seconds = 0;
  pai::plan_checkpoints(plan);
  CHECK(c.interval_seconds == 1);
  CHECK(c.expected_ettr == Approx(1).epsilon(1e-6));

  c.node_mtbf_seconds = 31536000;
  c.checkpoint_cost_seconds = 31536000;
  pai::plan_checkpoints(plan);
  // sqrt(2) (1 + sqrt(1/2)/3 + 1/18) - 1 of 365 days: never past the job MTBF.
  CHECK(c.interval_seconds == 26052341);
  CHECK(std::isfinite(c.expected_ettr));
  CHECK(c.expected_ettr > 0);
}

TEST_CASE("checkpoint_plan_line: a job that cannot progress is said so") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.nodes = 10000;
  pai::CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  c.node_mtbf_seconds = 3600;
  c.checkpoint_cost_seconds = 300;
  c.restart_cost_seconds = 600;
  pai::plan_checkpoints(plan);
  CHECK(c.expected_ettr == 0);
  CHECK(
      pai::checkpoint_plan_line(c, plan.nodes) ==
      "checkpoint plan: every 1.0 s (expected ETTR 0.0%: the job cannot progress, job MTBF 360 ms "
      "over 10000 nodes)");
}

TEST_CASE(
    "plan_checkpoints: the node MTBF from the hosts' histories - unless the spec states one") {
  pai::testing::TempDir dir;
  // node-0: 3 failures in 20 days; node-1: none in 10 days. 30 node-days over 3 failures.
  auto line = [](const std::string& node, const std::string& time, bool passed) {
    pai::HistoryRecord r;
    r.node = node;
    r.time = time;
    r.passed = passed;
    return pai::history_line(r);
  };
  pai::testing::spit(dir / "node-0.jsonl", line("node-0", "2024-05-01T00:00:00Z", true) +
                                               line("node-0", "2024-05-05T00:00:00Z", false) +
                                               line("node-0", "2024-05-11T00:00:00Z", false) +
                                               line("node-0", "2024-05-21T00:00:00Z", false));
  pai::testing::spit(dir / "node-1.jsonl", line("node-1", "2024-05-01T00:00:00Z", true) +
                                               line("node-1", "2024-05-11T00:00:00Z", true));
  pai::Plan plan = pai::testing::make_test_plan();
  plan.sanity_check.history.dir = dir.path();
  std::vector<std::string> warnings;
  pai::plan_checkpoints(plan, false, &warnings);
  const pai::CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  REQUIRE(c.has_node_mtbf_history);
  CHECK(c.node_mtbf_history.used);
  CHECK(c.node_mtbf_history.nodes == 2);
  CHECK(c.node_mtbf_history.failures == 3);
  CHECK(c.node_mtbf_seconds == 10 * 86400);
  CHECK(warnings.empty());
  CHECK(
      pai::checkpoint_plan_line(c, plan.nodes)
          .ends_with("; node MTBF 10d 00h from 3 failed checks in 30d 00h of 2 nodes' histories"));

  // The spec's nodeMtbf wins: the histories are not read.
  plan.fault_tolerance.checkpoint_plan.node_mtbf_seconds = 86400;
  pai::plan_checkpoints(plan, true, &warnings);
  CHECK_FALSE(c.has_node_mtbf_history);
  CHECK(c.node_mtbf_seconds == 86400);

  // Too few failures: counted and said, the MTBF the plan had kept.
  plan.fault_tolerance.checkpoint_plan.node_mtbf_seconds = 237 * 86400;
  pai::testing::spit(dir / "node-0.jsonl", line("node-0", "2024-05-01T00:00:00Z", true) +
                                               line("node-0", "2024-05-21T00:00:00Z", false));
  pai::plan_checkpoints(plan, false, &warnings);
  REQUIRE(c.has_node_mtbf_history);
  CHECK_FALSE(c.node_mtbf_history.used);
  CHECK(c.node_mtbf_seconds == 237 * 86400);
  CHECK(pai::checkpoint_plan_line(c, plan.nodes)
            .ends_with("; the node histories (1 failed check in 30d 00h of 2 nodes' histories) are "
                       "too few to "
                       "estimate from: node MTBF 237d 00h"));
}

}  // namespace checkpoint_planner_test
