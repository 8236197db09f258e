// The NIC counters pai reads (design §13) and what each one means, shared by the launcher that
// samples them (launcher/checks/nic_counters.h) and the coordinator's verdicts
// (launcher/policy/nic_verdict.h). Names are "<source>/<name>": counters/ and hw_counters/ of
// an RDMA port (Documentation/ABI/stable/sysfs-class-infiniband; hw_counters as mlx5 names
// them), netdev/ (class/net/<if>/statistics) and ethtool/ (the driver's statistics: pause
// frames).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pai {

/// What a counter counts.
enum class NicCounterKind {
  TxBytes,     ///< data sent
  RxBytes,     ///< data received
  Error,       ///< a link, packet or transport error: healthy fabrics count none
  LinkDown,    ///< the link went down (a flap)
  Congestion,  ///< congestion control at work: CNPs, ECN marks, pause frames, transmit waits
  Drop,        ///< packets dropped for want of buffers
};

/// One counter pai reads.
struct NicCounter {
  std::string_view source;  ///< "counters", "hw_counters", "netdev", "ethtool"
  std::string_view name;    ///< "port_xmit_data"
  NicCounterKind kind;
  std::uint32_t scale = 1;  ///< units per count (port_xmit_data counts 4-byte words)
};

/// Every counter of counters/, hw_counters/ and netdev/ that pai reads, by source then name.
const std::vector<NicCounter>& nic_counters();

/// The counter "<source>/<name>" ("hw_counters/np_cnp_sent"), or nullopt for one pai does not
/// read. ethtool/ names are a pattern: those that count pause frames ("rx_pause_ctrl_phy",
/// "tx_prio3_pause"), not their durations or transitions.
std::optional<NicCounter> find_nic_counter(std::string_view key);

/// "tx-bytes", "rx-bytes", "error", "link-down", "congestion", "drop".
std::string_view to_string(NicCounterKind kind);

}  // namespace pai
