// The node's NIC telemetry from sysfs (launcher/checks/nic_counters.h), through the root
// $PAI_SYSFS_ROOT names (else /sys): the ports of the plan's fabric.hcas, else every active
// RDMA port, on RoCE and InfiniBand fabrics; none on others.
#pragma once

#include <memory>
#include <vector>

#include "launcher/checks/nic_counters.h"
#include "launcher/node/nic_telemetry.h"
#include "libpai/plan.h"

namespace pai::launcher {

class SysfsNicTelemetry final : public NicTelemetry {
 public:
  /// Finds the job's ports now (once: a port that appears later is not watched).
  explicit SysfsNicTelemetry(const Plan& plan);
  std::vector<net::NicPort> window() override;
  /// How many ports it watches.
  std::size_t ports() const { return sampler_ ? sampler_->ports().size() : 0; }

 private:
  checks::KernelEthtoolStats ethtool_;
  std::unique_ptr<checks::NicSampler> sampler_;
  std::vector<checks::NicCounters> previous_;
};

/// The wire form of a window: the byte counters always, the others when they grew, at most
/// net::kMaxNicCounters (those that grew most are kept).
net::NicPort nic_port_of(const checks::NicWindow& window, bool first);

}  // namespace pai::launcher
