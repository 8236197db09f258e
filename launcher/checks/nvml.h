// NVML (libnvidia-ml.so.1), opened at run time: the health counters of the gpu check and of the
// burn (throttling, ECC, remapped rows, temperature, power, Xid events). Only this file and
// nvml.cpp know NVML's symbols.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pai::checks {

/// Health of one GPU as NVML reports it. A counter NVML does not support on this GPU is
/// reported as not known rather than as a failure.
struct GpuHealth {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  ///< "00000000:18:00.0"
  std::string serial;      ///< the board's serial number; empty when NVML has none
  bool remapped_rows_known = false;
  bool remap_pending = false;  ///< a row remap waits for a GPU reset
  bool remap_failed = false;   ///< a remap failed: the GPU needs service
  bool ecc_known = false;
  unsigned long long volatile_uncorrectable_ecc = 0;  ///< since the driver loaded
  unsigned long long volatile_correctable_ecc = 0;    ///< since the driver loaded
  bool aggregate_ecc_known = false;
  unsigned long long aggregate_uncorrectable_ecc = 0;  ///< over the board's lifetime
  bool throttle_known = false;
  unsigned long long throttle_reasons = 0;      ///< the bad ones only: see kBadThrottleReasons
  unsigned long long throttle_reasons_all = 0;  ///< every reason NVML reported
  int temperature_c = -1;                       ///< GPU core; -1 = not known
  double power_w = -1;                          ///< board draw; -1 = not known
  int pcie_generation = 0;                      ///< current link; 0 = not known
  int pcie_width = 0;
  int pcie_max_generation = 0;  ///< what the GPU and slot support; 0 = not known
  int pcie_max_width = 0;
};

/// What one GPU is doing now, as NVML reports it; -1 for what it does not report.
struct GpuUsage {
  int index = 0;
  int utilization = -1;  ///< percent of the last sample period a kernel ran, 0..100
  std::int64_t memory_used_bytes = -1;
  std::int64_t memory_total_bytes = -1;
  bool operator==(const GpuUsage&) const = default;
};

/// Throttle reasons that point at a sick node: hardware slowdown, software and hardware thermal
/// slowdown, hardware power brake.
inline constexpr unsigned long long kBadThrottleReasons = 0x8 | 0x20 | 0x40 | 0x80;
/// clocksEventReasonGpuIdle: the GPU had no work when sampled (between the burn's phases), so
/// nothing limited it.
inline constexpr unsigned long long kIdleThrottleReason = 0x1;

/// "HW slowdown, HW thermal slowdown" for the bits of `reasons` in kBadThrottleReasons.
std::string describe_throttle_reasons(unsigned long long reasons);

/// "GPU idle, SW power cap" for the bits of `reasons` outside kBadThrottleReasons (settings and
/// states, not faults), with unknown bits as "0x400".
std::string describe_benign_throttle_reasons(unsigned long long reasons);

/// One Xid event: the driver's report of a GPU error (nvmlEventTypeXidCriticalError).
struct XidEvent {
  int index = 0;  ///< the GPU, in NVML order
  unsigned long long xid = 0;
  bool operator==(const XidEvent&) const = default;
};

/// What NVML's device handles (nvmlDevice_t) point at; opaque.
struct NvmlDevice;

/// An initialized NVML.
class Nvml {
 public:
  /// Opens `library` and calls nvmlInit_v2; null with `*reason` set when it cannot.
  static std::unique_ptr<Nvml> open(const std::string& library, std::string* reason);
  /// Shuts NVML down and closes the library.
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  /// The kernel driver's version, "550.54.15".
  std::string driver_version() const;
  /// Health of every GPU NVML sees, in NVML order; `*error` set when they cannot be listed.
  std::vector<GpuHealth> health(std::string* error) const;
  /// Utilization and memory of every GPU NVML sees, in NVML order; `*error` set when they
  /// cannot be listed. Cheap enough to call every few seconds while ranks run.
  std::vector<GpuUsage> usage(std::string* error) const;
  /// Registers every GPU for Xid events; false with `*error` set when NVML cannot (an old
  /// driver, a GPU without event support).
  bool watch_xids(std::string* error);
  /// Waits up to `timeout_ms` for Xid events after watch_xids(), returning those that arrived
  /// (empty on timeout); waits `timeout_ms` and returns nothing without a watch.
  std::vector<XidEvent> wait_xids(unsigned timeout_ms) const;

 private:
  struct Api;
  Nvml();
  /// Every GPU's handle, in NVML order; `*error` set, and the handles before it, when one
  /// cannot be opened.
  std::vector<NvmlDevice*> devices(std::string* error) const;
  void* handle_ = nullptr;
  std::unique_ptr<Api> api_;
  void* event_set_ = nullptr;         ///< nvmlEventSet_t of watch_xids()
  std::vector<NvmlDevice*> watched_;  ///< the handles watch_xids() registered, by index
};

}  // namespace pai::checks
