#include "libpai/nic_counter_kinds.h"

namespace pai {

const std::vector<NicCounter>& nic_counters() {
  using K = NicCounterKind;
  static const std::vector<NicCounter> table = {
      {"counters", "excessive_buffer_overrun_errors", K::Error},
      {"counters", "link_downed", K::LinkDown},
      {"counters", "link_error_recovery", K::Error},
      {"counters", "local_link_integrity_errors", K::Error},
      {"counters", "port_rcv_data", K::RxBytes, 4},
      {"counters", "port_rcv_errors", K::Error},
      {"counters", "port_rcv_remote_physical_errors", K::Error},
      {"counters", "port_xmit_data", K::TxBytes, 4},
      {"counters", "port_xmit_discards", K::Drop},
      {"counters", "port_xmit_wait", K::Congestion},
      {"counters", "symbol_error", K::Error},
      {"hw_counters", "duplicate_request", K::Error},
      {"hw_counters", "implied_nak_seq_err", K::Error},
      {"hw_counters", "local_ack_timeout_err", K::Error},
      {"hw_counters", "np_cnp_sent", K::Congestion},
      {"hw_counters", "np_ecn_marked_roce_packets", K::Congestion},
      {"hw_counters", "out_of_buffer", K::Drop},
      {"hw_counters", "out_of_sequence", K::Error},
      {"hw_counters", "packet_seq_err", K::Error},
      {"hw_counters", "req_cqe_error", K::Error},
      {"hw_counters", "resp_cqe_error", K::Error},
      {"hw_counters", "rnr_nak_retry_err", K::Error},
      {"hw_counters", "rp_cnp_handled", K::Congestion},
      {"hw_counters", "rx_icrc_encapsulated", K::Error},
      {"netdev", "rx_bytes", K::RxBytes},
      {"netdev", "rx_crc_errors", K::Error},
      {"netdev", "rx_dropped", K::Drop},
      {"netdev", "rx_errors", K::Error},
      {"netdev", "rx_missed_errors", K::Drop},
      {"netdev", "tx_bytes", K::TxBytes},
      {"netdev", "tx_errors", K::Error},
  };
  return table;
}

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<NicCounter> find_nic_counter(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view source = key.substr(0, slash);
  const std::string_view name = key.substr(slash + 1);
  if (source == "ethtool") {
    if (ends_with(name, "_pause") || ends_with(name, "pause_ctrl_phy")) {
      return NicCounter{"ethtool", name, NicCounterKind::Congestion};
    }
    return std::nullopt;
  }
  for (const NicCounter& c : nic_counters()) {
    if (c.source == source && c.name == name) return c;
  }
  return std::nullopt;
}

std::string_view to_string(NicCounterKind kind) {
  switch (kind) {
    case NicCounterKind::TxBytes:
      return "tx-bytes";
    case NicCounterKind::RxBytes:
      return "rx-bytes";
    case NicCounterKind::Error:
      return "error";
    case NicCounterKind::LinkDown:
      return "link-down";
    case NicCounterKind::Congestion:
      return "congestion";
    case NicCounterKind::Drop:
      return "drop";
  }
  return "error";
}

}  // namespace pai
