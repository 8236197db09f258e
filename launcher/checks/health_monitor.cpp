#include "launcher/checks/health_monitor.h"

#include <algorithm>

namespace pai::checks {

HealthMonitor::HealthMonitor(Nvml& nvml, std::chrono::milliseconds interval)
    : nvml_(nvml), interval_(std::max(interval, std::chrono::milliseconds(10))) {
  std::string watch_error;
  if (!nvml_.watch_xids(&watch_error)) notes_ += watch_error + "\n";
  sample();
  thread_ = std::thread([this] { loop(); });
}

HealthMonitor::~HealthMonitor() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void HealthMonitor::sample() {
  std::string error;
  std::vector<GpuHealth> now = nvml_.health(&error);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!error.empty() && error_.empty()) error_ = error;
  bool first = records_.empty();
  for (const GpuHealth& h : now) {
    auto i = static_cast<std::size_t>(h.index);
    if (i >= records_.size()) {
      if (!first) continue;  // a GPU appearing mid-burn is not one the burn used
      records_.resize(i + 1);
    }
    GpuHealthRecord& r = records_[i];
    if (first) {
      r.index = h.index;
      r.name = h.name;
      r.pci_bus_id = h.pci_bus_id;
      r.serial = h.serial;
      r.aggregate_uncorrected_before = h.aggregate_uncorrectable_ecc;
    }
    if (h.throttle_known) {
      r.throttle_known = true;
      r.throttle_seen |= h.throttle_reasons_all;
    }
    r.max_temperature_c = std::max(r.max_temperature_c, h.temperature_c);
    r.max_power_w = std::max(r.max_power_w, h.power_w);
    if (h.ecc_known) {
      r.ecc_known = true;
      r.volatile_uncorrected = h.volatile_uncorrectable_ecc;
      r.volatile_corrected = h.volatile_correctable_ecc;
    }
    if (h.aggregate_ecc_known) {
      // Known only from a later sample: count from there rather than from zero.
      if (!r.aggregate_ecc_known) r.aggregate_uncorrected_before = h.aggregate_uncorrectable_ecc;
      r.aggregate_ecc_known = true;
      r.aggregate_uncorrected_after = h.aggregate_uncorrectable_ecc;
    }
    if (h.remapped_rows_known) {
      r.remapped_rows_known = true;
      r.remap_pending = r.remap_pending || h.remap_pending;
      r.remap_failed = r.remap_failed || h.remap_failed;
    }
  }
}

void HealthMonitor::loop() {
  while (!stop_) {
    // The wait for Xid events is the sampling interval's sleep.
    std::vector<XidEvent> xids = nvml_.wait_xids(static_cast<unsigned>(interval_.count()));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const XidEvent& e : xids) {
        if (e.index >= 0 && static_cast<std::size_t>(e.index) < records_.size())
          records_[static_cast<std::size_t>(e.index)].xids.push_back(e.xid);
      }
    }
    if (!stop_) sample();
  }
}

std::vector<GpuHealthRecord> HealthMonitor::finish(std::string* notes, std::string* error) {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  // Events that arrived after the loop's last wait, then the last counters.
  for (const XidEvent& e : nvml_.wait_xids(0)) {
    if (e.index >= 0 && static_cast<std::size_t>(e.index) < records_.size())
      records_[static_cast<std::size_t>(e.index)].xids.push_back(e.xid);
  }
  sample();
  std::lock_guard<std::mutex> lock(mutex_);
  *notes = notes_;
  *error = error_;
  return records_;
}

}  // namespace pai::checks
