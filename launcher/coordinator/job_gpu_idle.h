// GPU-idle detection during the run (issue 18): the GPU samples that come with the launchers'
// heartbeats go into the policy's GpuIdleWatch, attempt by attempt; a verdict is journalled
// ("gpu-idle"), shown, counted, and with `monitoring.gpuIdle.action: restart` restarts the job
// (JobRun applies restart()). Internal to launcher/coordinator/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/failure_classifier.h"
#include "launcher/policy/gpu_idle.h"

namespace pai::launcher::coordinator {

class JobGpuIdle {
 public:
  /// Judges with the settings of state.plan's monitoring.gpuIdle.
  explicit JobGpuIdle(const CoordinatorState& state);

  /// The GPUs node `node` sampled at `now` while its instance ran attempt `attempt`. Samples
  /// of an earlier attempt's episode never count toward this one's window; GPUs whose
  /// utilization NVML did not report are skipped. New verdicts, once per episode.
  std::vector<GpuIdleVerdict> observe(int node, int attempt,
                                      const std::vector<net::GpuSample>& gpus,
                                      Clock::time_point now);
  /// The node's ranks stopped (pause, failure, restart): its episodes end.
  void forget(int node);

  /// The journal record of a verdict.
  journal::GpuIdle record(const GpuIdleVerdict& verdict, int instance) const;
  /// Its terminal line: "gpu-idle: GPU 0 on node-1 (worker-0) below 30% for 15m (at most 12%,
  /// now 3%); warning only" or "...; restarting".
  std::string line(const GpuIdleVerdict& verdict, int instance) const;
  /// Its failure reason for a restart: "gpu-idle: GPU 0 on node-1 below 30% for 15m".
  std::string reason(const GpuIdleVerdict& verdict) const;
  /// With `monitoring.gpuIdle.action: restart`, the failure the verdict stands for (signature
  /// "gpu-idle", retryable unless the policy is never); nullopt when it only warns.
  std::optional<Classification> restart(const GpuIdleVerdict& verdict) const;

 private:
  const CoordinatorState& state_;
  GpuIdleWatch watch_;
  std::map<int, int> attempts_;  // node -> the attempt its latest samples came from
};

}  // namespace pai::launcher::coordinator
