#include "compiler/plan/checkpoint_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "libpai/duration.h"

namespace pai {
namespace {

// log(e^x - 1) for x > 0 without overflow: e^x leaves double's range past x = 709.
double log_expm1(double x) {
  return x > 30 ? x + std::log1p(-std::exp(-x)) : std::log(std::expm1(x));
}

// human_duration's two units ("1h 13m"); a job MTBF may be a fraction of a second.
std::string rough_duration(double seconds) {
  const auto ms = static_cast<std::int64_t>(std::min(seconds, 1e15) * 1000);
  return human_duration(ms);
}

}  // namespace

double daly_interval(double job_mtbf, double cost) {
  if (!(cost > 0)) return 0;
  if (cost >= 2 * job_mtbf) return job_mtbf;
  const double ratio = cost / (2 * job_mtbf);
  const double tau = std::sqrt(2 * cost * job_mtbf) * (1 + std::sqrt(ratio) / 3 + ratio / 9) - cost;
  return std::max(tau, 0.0);
}

double expected_ettr(double interval, double cost, double restart, double job_mtbf) {
  if (!(interval > 0) || !(job_mtbf > 0)) return 0;
  // ETTR = interval / (M e^(R/M) expm1((interval + cost) / M)), in logarithms.
  const double log_ettr = std::log(interval) - std::log(job_mtbf) - restart / job_mtbf -
                          log_expm1((interval + cost) / job_mtbf);
  if (std::isnan(log_ettr)) return 0;
  return std::clamp(std::exp(log_ettr), 0.0, 1.0);
}

void plan_checkpoints(Plan& plan) {
  CheckpointPlan& c = plan.fault_tolerance.checkpoint_plan;
  const int nodes = std::max(plan.nodes, 1);
  c.job_mtbf_seconds = static_cast<double>(c.node_mtbf_seconds) / nodes;
  const double tau =
      daly_interval(c.job_mtbf_seconds, static_cast<double>(c.checkpoint_cost_seconds));
  c.interval_seconds = static_cast<std::int64_t>(
      std::clamp(std::round(tau), 1.0, static_cast<double>(kMaxDurationSeconds)));
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
