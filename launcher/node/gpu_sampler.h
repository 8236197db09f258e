// What a node agent needs to watch its GPUs while its ranks run (issue 18): their utilization
// and memory now. nvml_gpu_sampler.h is the real one; tests use a fake.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/net/protocol.h"

namespace pai::launcher {

/// Samples this node's GPUs.
class GpuSampler {
 public:
  virtual ~GpuSampler() = default;
  /// Every GPU of the node now, in index order (empty on a node without GPUs); nullopt with
  /// `*why` set when they cannot be sampled here (no NVML): the agent then stops asking.
  virtual std::optional<std::vector<net::GpuSample>> sample(std::string* why) = 0;
};

}  // namespace pai::launcher
