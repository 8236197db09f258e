// GPU-idle detection (issue 18): a GPU whose utilization stays below a threshold for a whole
// window while its node's ranks run is the usual sign of a job wedged on data loading or
// distributed init. Pure: samples carry their time, so tests replay recorded streams.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace pai::launcher {

/// The settings of spec `monitoring.gpuIdle`.
struct GpuIdleSettings {
  double threshold_percent = 30;  ///< utilization below this is idle
  std::chrono::milliseconds window{std::chrono::minutes(15)};
};

/// How often a node samples its GPUs for a `window`: every 5 s, more often for a window under
/// 20 s so that it holds at least four samples, but at most every 100 ms.
std::chrono::milliseconds gpu_sample_interval(std::chrono::milliseconds window);

/// One NVML utilization sample of GPU `gpu` on node `node`, taken while the node's ranks ran.
struct GpuIdleSample {
  int node = 0;
  int gpu = 0;
  int utilization = 0;  ///< percent, 0..100
  std::chrono::steady_clock::time_point at;
};

/// A GPU idle for a whole window: once per episode (until it is busy again or forgotten).
struct GpuIdleVerdict {
  int node = 0;
  int gpu = 0;
  int utilization = 0;      ///< the latest sample's
  int max_utilization = 0;  ///< the highest sample of the episode (still below the threshold)
  std::chrono::milliseconds idle_for{0};  ///< from the episode's first idle sample, >= window
  bool operator==(const GpuIdleVerdict&) const = default;
};

/// Watches every GPU of the job, episode by episode.
class GpuIdleWatch {
 public:
  explicit GpuIdleWatch(GpuIdleSettings settings) : settings_(settings) {}

  /// A sample, in time order per GPU. A verdict when the GPU has been below the threshold in
  /// every sample for at least the window and no verdict was given in this episode; a sample
  /// at or above the threshold ends the episode.
  std::optional<GpuIdleVerdict> observe(const GpuIdleSample& sample);
  /// The node's ranks stopped (an exit, a restart, a pause): its GPUs start afresh, so idle
  /// time before the stop never counts toward a window after it.
  void forget(int node);

  const GpuIdleSettings& settings() const { return settings_; }

 private:
  struct Episode {
    std::chrono::steady_clock::time_point since;  // first idle sample
    int max_utilization = 0;
    bool judged = false;  // the verdict of this episode was given
  };
  GpuIdleSettings settings_;
  std::map<std::pair<int, int>, Episode> idle_;  // (node, gpu) -> its idle episode
};

}  // namespace pai::launcher
