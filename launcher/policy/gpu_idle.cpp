#include "launcher/policy/gpu_idle.h"

#include <algorithm>
#include <limits>

namespace pai::launcher {

std::chrono::milliseconds gpu_sample_interval(std::chrono::milliseconds window) {
  return std::clamp(window / 4, std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
}

std::optional<GpuIdleVerdict> GpuIdleWatch::observe(const GpuIdleSample& sample) {
  const auto key = std::make_pair(sample.node, sample.gpu);
  if (sample.utilization >= settings_.threshold_percent) {
    idle_.erase(key);
    return std::nullopt;
  }
  auto [it, fresh] = idle_.try_emplace(key, Episode{sample.at, sample.utilization, false});
  Episode& episode = it->second;
  if (!fresh) episode.max_utilization = std::max(episode.max_utilization, sample.utilization);
  const auto idle_for =
      std::chrono::duration_cast<std::chrono::milliseconds>(sample.at - episode.since);
  if (episode.judged || idle_for < settings_.window) return std::nullopt;
  episode.judged = true;
  return GpuIdleVerdict{.node = sample.node,
                        .gpu = sample.gpu,
                        .utilization = sample.utilization,
                        .max_utilization = episode.max_utilization,
                        .idle_for = idle_for};
}

void GpuIdleWatch::forget(int node) {
  auto it = idle_.lower_bound({node, std::numeric_limits<int>::min()});
  while (it != idle_.end() && it->first.first == node) it = idle_.erase(it);
}

}  // namespace pai::launcher
