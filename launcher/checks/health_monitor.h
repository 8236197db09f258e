// Watching every GPU through NVML while the burn runs: a thread samples throttle reasons,
// temperature, power, ECC counters and remapped rows, and collects Xid events, into one
// GpuHealthRecord per GPU for gpu_health.h to judge.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launcher/checks/gpu_health.h"
#include "launcher/checks/nvml.h"

namespace pai::checks {

/// Samples `nvml` from construction to finish().
class HealthMonitor {
 public:
  /// Takes the first sample (the "before" of the ECC counters), registers for Xid events and
  /// starts sampling every `interval`.
  HealthMonitor(Nvml& nvml, std::chrono::milliseconds interval);
  /// Stops sampling if finish() was not called.
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  /// Stops sampling, takes a last sample and returns one record per GPU NVML lists, in NVML
  /// order. `*notes` gets what could not be watched ("NVML lacks the event entry points: Xid
  /// events not watched"), one line each; `*error` is set when the GPUs cannot be listed.
  std::vector<GpuHealthRecord> finish(std::string* notes, std::string* error);

 private:
  void sample();
  void loop();

  Nvml& nvml_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::vector<GpuHealthRecord> records_;
  std::string notes_;
  std::string error_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace pai::checks
