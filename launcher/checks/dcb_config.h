// A netdev's Data Center Bridging configuration as the kernel reports it through rtnetlink
// (RTM_GETDCB, DCB_CMD_IEEE_GET; what `mlnx_qos` and `dcb` show): which priorities PFC makes
// lossless and, for a port that trusts DSCP, which priority each DSCP value is mapped to. On
// RoCE, NCCL_IB_TC's DSCP (the traffic class >> 2) must land on a priority PFC protects.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace pai::checks {

/// What DCB_CMD_IEEE_GET reported.
struct DcbConfig {
  std::uint8_t pfc_enabled = 0;  ///< bit p set: priority p is lossless
  /// DSCP value -> priority, from the APP table entries with the DSCP selector; empty when
  /// the port does not trust DSCP (it trusts the VLAN's PCP).
  std::map<int, int> dscp_priority;
  bool operator==(const DcbConfig&) const = default;
};

/// Reads DCB configurations; tests use a fake.
class DcbReader {
 public:
  virtual ~DcbReader() = default;
  /// The configuration of `netdev`; nullopt when it has none to report (no DCB support, as a
  /// veth; no such device in this network namespace).
  virtual std::optional<DcbConfig> read(const std::string& netdev) = 0;
};

/// The kernel's, one netlink request per call.
class KernelDcbReader final : public DcbReader {
 public:
  std::optional<DcbConfig> read(const std::string& netdev) override;
};

/// Parses the attributes of a DCB_CMD_IEEE_GET reply (what follows its struct dcbmsg);
/// nullopt when they hold no DCB_ATTR_IEEE. Malformed attributes are skipped, never read past.
std::optional<DcbConfig> parse_dcb_ieee_reply(const unsigned char* attributes, std::size_t size);

}  // namespace pai::checks
