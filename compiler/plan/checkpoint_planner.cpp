#include "compiler/plan/checkpoint_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compiler/plan/history_mtbf.h"
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

void plan_checkpoints(Plan& plan, bool node_mtbf_stated, std::vector<std::string>* warnings) {
  CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  c.has_node_mtbf_history = false;
  c.node_mtbf_history = {};
  if (!node_mtbf_stated && !plan.sanity_check.history.dir.empty()) {
    std::vector<std::string> hosts;
    for (const Host& host : plan.hosts) hosts.push_back(host.name);
    std::vector<std::string> skipped;
    const auto counts = read_histories(plan.sanity_check.history.dir, hosts, &skipped);
    if (warnings != nullptr) warnings->insert(warnings->end(), skipped.begin(), skipped.end());
    if (counts) {
      c.has_node_mtbf_history = true;
      c.node_mtbf_history = *counts;
      if (const auto mtbf = history_node_mtbf(*counts)) {
        c.node_mtbf_seconds = *mtbf;
        c.node_mtbf_history.used = true;
      }
    }
  }
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
  if (c.has_node_mtbf_history) {
    const MtbfHistory* h = &c.node_mtbf_history;
    const std::string evidence =
        std::to_string(h->failures) + (h->failures == 1 ? " failed check" : " failed checks") +
        " in " + rough_duration(static_cast<double>(h->node_seconds)) + " of " +
        std::to_string(h->nodes) + (h->nodes == 1 ? " node's history" : " nodes' histories");
    line += h->used ? "; node MTBF " + rough_duration(static_cast<double>(c.node_mtbf_seconds)) +
                          " from " + evidence
                    : "; the node histories (" + evidence +
                          ") are too few to estimate from: node MTBF " +
                          rough_duration(static_cast<double>(c.node_mtbf_seconds));
  }
  return line;
}

}  // namespace pai
