#include "compiler/plan/checkpoint_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "libpai/checkpoint_interval.h"
#include "libpai/duration.h"

namespace pai {
namespace {

// human_duration's two units ("1h 13m"); a job MTBF may be a fraction of a second.
std::string rough_duration(double seconds) {
  const auto ms = static_cast<std::int64_t>(std::min(seconds, 1e15) * 1000);
  return human_duration(ms);
}

}  // namespace

void plan_checkpoints(Plan& plan) {
  CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  const int nodes = std::max(plan.nodes, 1);
  c.job_mtbf_seconds = static_cast<double>(c.node_mtbf_seconds) / nodes;
  c.interval_seconds =
      planned_interval_seconds(c.job_mtbf_seconds, static_cast<double>(c.checkpoint_cost_seconds));
  c.expected_ettr = expected_ettr(static_cast<double>(c.interval_seconds),
                                  static_cast<double>(c.checkpoint_cost_seconds),
                                  static_cast<double>(c.restart_cost_seconds), c.job_mtbf_seconds);
}

std::string checkpoint_plan_line(const CheckpointPlan& c, int nodes) {
  char ettr[32];
  std::snprintf(ettr, sizeof ettr, "%.1f%%", 100 * c.expected_ettr);
  std::string line =
      "checkpoint plan: every " + rough_duration(c.interval_seconds) + " (expected ETTR " + ettr;
  // Below 1% a failure comes before a save and a restart are through: no steady progress.
  if (c.expected_ettr < 0.01) line += ": the job cannot progress";
  line += ", job MTBF " + rough_duration(c.job_mtbf_seconds) + " over " + std::to_string(nodes) +
          (nodes == 1 ? " node)" : " nodes)");
  return line;
}

}  // namespace pai
