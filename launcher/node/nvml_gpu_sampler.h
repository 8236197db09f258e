// The node's GPUs sampled through NVML (launcher/checks/nvml.h), opened at run time on first
// use, so a CPU-only node runs the same binary and simply has nothing to sample.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/checks/nvml.h"
#include "launcher/node/gpu_sampler.h"

namespace pai::launcher {

/// A GpuSampler reading NVML.
class NvmlGpuSampler final : public GpuSampler {
 public:
  /// Opens `library` (dlopen's search, so LD_LIBRARY_PATH applies) when first asked.
  explicit NvmlGpuSampler(std::string library = "libnvidia-ml.so.1")
      : library_(std::move(library)) {}

  /// NVML's utilization and memory of each GPU; nullopt ("no NVML (...)", or NVML's error
  /// listing the GPUs) when it cannot say, every time after the first such answer.
  std::optional<std::vector<net::GpuSample>> sample(std::string* why) override;

 private:
  std::string library_;
  bool opened_ = false;
  std::unique_ptr<checks::Nvml> nvml_;
  std::string unavailable_;  // why nothing can be sampled; "" while it can
};

}  // namespace pai::launcher
