#include "launcher/coordinator/job_gpu_idle.h"

#include <cstdio>

namespace pai::launcher::coordinator {

namespace {

GpuIdleSettings settings_of(const GpuIdle& g) {
  return GpuIdleSettings{.threshold_percent = g.threshold_percent,
                         .window = std::chrono::seconds(g.window_seconds)};
}

// "30%", "12.5%".
std::string percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", value);
  return text;
}

}  // namespace

JobGpuIdle::JobGpuIdle(const CoordinatorState& state)
    : state_(state), watch_(settings_of(state.plan.monitoring.gpu_idle)) {}

std::vector<GpuIdleVerdict> JobGpuIdle::observe(int node, int attempt,
                                                const std::vector<net::GpuSample>& gpus,
                                                Clock::time_point now) {
  auto [it, fresh] = attempts_.try_emplace(node, attempt);
  if (!fresh && it->second != attempt) {
    watch_.forget(node);
    it->second = attempt;
  }
  std::vector<GpuIdleVerdict> verdicts;
  for (const net::GpuSample& g : gpus) {
    if (g.utilization < 0) continue;
    auto v = watch_.observe(GpuIdleSample{
        .node = node, .gpu = static_cast<int>(g.index), .utilization = g.utilization, .at = now});
    if (v) verdicts.push_back(*v);
  }
  return verdicts;
}

void JobGpuIdle::forget(int node) {
  watch_.forget(node);
  attempts_.erase(node);
}

journal::GpuIdle JobGpuIdle::record(const GpuIdleVerdict& v, int instance) const {
  const GpuIdle& g = state_.plan.monitoring.gpu_idle;
  return journal::GpuIdle{.node = state_.nodes[static_cast<std::size_t>(v.node)].name,
                          .instance = state_.instance_name(instance),
                          .gpu = v.gpu,
                          .utilization = v.utilization,
                          .max_utilization = v.max_utilization,
                          .threshold_percent = g.threshold_percent,
                          .window_seconds = g.window_seconds,
                          .idle_seconds = v.idle_for.count() / 1000,
                          .action = to_string(g.action)};
}

std::string JobGpuIdle::reason(const GpuIdleVerdict& v) const {
  const GpuIdle& g = state_.plan.monitoring.gpu_idle;
  return "gpu-idle: GPU " + std::to_string(v.gpu) + " on " +
         state_.nodes[static_cast<std::size_t>(v.node)].name + " below " +
         percent(g.threshold_percent) + " for " +
         duration_text(std::chrono::seconds(g.window_seconds));
}

std::optional<Classification> JobGpuIdle::restart(const GpuIdleVerdict& v) const {
  if (state_.plan.monitoring.gpu_idle.action != GpuIdleAction::Restart) return std::nullopt;
  Classification c;
  c.retryable = state_.plan.fault_tolerance.policy != RestartPolicy::Never;
  c.signature = "gpu-idle";
  c.reason = reason(v) + (c.retryable ? ": retryable" : ": not retryable (policy never)");
  return c;
}

std::string JobGpuIdle::line(const GpuIdleVerdict& v, int instance) const {
  const GpuIdle& g = state_.plan.monitoring.gpu_idle;
  std::string text = reason(v);
  text.insert(text.find(" below "), " (" + state_.instance_name(instance) + ")");
  return text + " (at most " + std::to_string(v.max_utilization) + "%, now " +
         std::to_string(v.utilization) + "%); " +
         (g.action == GpuIdleAction::Restart ? "restarting" : "warning only");
}

}  // namespace pai::launcher::coordinator
