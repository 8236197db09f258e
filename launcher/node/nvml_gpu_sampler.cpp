#include "launcher/node/nvml_gpu_sampler.h"

namespace pai::launcher {

std::optional<std::vector<net::GpuSample>> NvmlGpuSampler::sample(std::string* why) {
  if (!opened_) {
    opened_ = true;
    nvml_ = checks::Nvml::open(library_, &unavailable_);
  }
  if (!nvml_) {
    *why = unavailable_;
    return std::nullopt;
  }
  std::string error;
  const std::vector<checks::GpuUsage> usage = nvml_->usage(&error);
  if (!error.empty()) {
    // NVML that cannot list the GPUs once will not later: no error on every heartbeat.
    unavailable_ = error;
    nvml_.reset();
    *why = unavailable_;
    return std::nullopt;
  }
  std::vector<net::GpuSample> gpus;
  for (const checks::GpuUsage& u : usage) {
    if (static_cast<std::size_t>(u.index) >= net::kMaxNodeGpus) break;
    gpus.push_back(net::GpuSample{.index = u.index,
                                  .utilization = u.utilization,
                                  .memory_used_bytes = u.memory_used_bytes,
                                  .memory_total_bytes = u.memory_total_bytes});
  }
  return gpus;
}

}  // namespace pai::launcher
