// NIC telemetry on a node (design §13): the counters of the RDMA ports the job uses, read
// once a heartbeat through the SysfsRoot, and the rates between two reads. The counters are
// those of libpai/nic_counter_kinds.h, per port:
//   counters/<name>      the port's PortCounters (Documentation/ABI/stable/sysfs-class-infiniband)
//   hw_counters/<name>   the driver's (mlx5: out_of_sequence, local_ack_timeout_err,
//   np_cnp_sent...) netdev/<name>        class/net/<netdev>/statistics/<name> of a RoCE port's
//   netdev ethtool/<name>       the netdev's driver statistics that count pause frames, through the
//                        ethtool ioctl
// Each counter file is opened once and read again with pread() at offset 0 (sysfs makes every
// such read fresh), so a heartbeat costs one system call per counter (bench/nic_telemetry).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "launcher/checks/ethtool_stats.h"
#include "launcher/checks/rdma_ports.h"
#include "launcher/checks/sysfs_root.h"

namespace pai::checks {

/// One port's counters at one moment.
struct NicCounters {
  std::string port;          ///< "mlx5_0/1"
  std::string netdev;        ///< "eth2"; "" none
  std::string state;         ///< "ACTIVE", "DOWN"...; "" unreadable (the port is gone)
  std::int64_t time_ns = 0;  ///< when read, CLOCK_MONOTONIC
  /// Every counter pai reads that exists and holds one unsigned number, by "<source>/<name>".
  std::map<std::string, std::uint64_t> values;
  int malformed = 0;  ///< counter files that exist but hold no number
};

/// Reads the counters of a fixed list of ports. Single-threaded.
class NicSampler {
 public:
  /// Samples `ports` through `sys`; `ethtool` (may be null: no pause frames) stays the
  /// caller's.
  NicSampler(SysfsRoot sys, std::vector<RdmaPort> ports, EthtoolStats* ethtool);
  ~NicSampler();
  NicSampler(const NicSampler&) = delete;
  NicSampler& operator=(const NicSampler&) = delete;

  const std::vector<RdmaPort>& ports() const { return ports_; }
  /// Every port's counters now (`now_ns`, CLOCK_MONOTONIC), in the order of ports(). A port
  /// whose state cannot be read is looked up by its paths again (a driver reload recreates
  /// its folders); while it is gone it reads with an empty state and no values.
  std::vector<NicCounters> sample(std::int64_t now_ns);

 private:
  struct Open;
  void open(std::size_t i);

  SysfsRoot sys_;
  std::vector<RdmaPort> ports_;
  EthtoolStats* ethtool_;
  std::vector<std::unique_ptr<Open>> open_;
};

/// What a port's counters did between two reads.
struct NicWindow {
  std::string port;
  std::string netdev;
  std::string state_before;
  std::string state;
  double seconds = 0;  ///< between the reads; 0 when not after
  /// How much each counter of both reads grew, when it did not go backwards (a 32-bit
  /// counter that wrapped counts what it wrapped past).
  std::map<std::string, std::uint64_t> deltas;
  /// Counters that went backwards other than by a 32-bit wrap: reset (a driver reload, a
  /// `perfquery -R`); their rate is unknown for this window.
  std::vector<std::string> reset;
};

/// The window from `before` to `after` of the same port; no deltas when `after` is not later.
NicWindow nic_window(const NicCounters& before, const NicCounters& after);

/// The window's deltas per second.
std::map<std::string, double> nic_rates(const NicWindow& window);

}  // namespace pai::checks
