// What a node agent needs to watch the RDMA ports the job uses (design §13): each port's
// counters, how much they grew since the previous heartbeat. sysfs_nic_telemetry.h is the
// real one; tests use a fake.
#pragma once

#include <vector>

#include "launcher/net/protocol.h"

namespace pai::launcher {

/// Reads this node's NIC counters once a heartbeat.
class NicTelemetry {
 public:
  virtual ~NicTelemetry() = default;
  /// Every port now, with what its counters did since the previous call (a port's first
  /// call has windowMs 0 and no counters); empty on a node without the job's ports.
  virtual std::vector<net::NicPort> window() = 0;
};

}  // namespace pai::launcher
