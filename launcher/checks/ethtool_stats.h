// A netdev's driver statistics as `ethtool -S` shows them, through the kernel's ethtool ioctl
// (SIOCETHTOOL: ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS). Drivers put there what
// sysfs lacks, notably pause frames (mlx5: rx_pause_ctrl_phy, tx_prio3_pause, ...).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace pai::checks {

/// Reads driver statistics; tests use a fake.
class EthtoolStats {
 public:
  virtual ~EthtoolStats() = default;
  /// The statistics of `netdev` whose names contain `filter` ("" every one); nullopt when the
  /// netdev or its driver has none (no such device in this network namespace, not supported).
  virtual std::optional<std::map<std::string, std::uint64_t>> read(const std::string& netdev,
                                                                   const std::string& filter) = 0;
};

/// The kernel's: one ioctl socket, opened on first use and kept.
class KernelEthtoolStats final : public EthtoolStats {
 public:
  /// Statistics a driver may list at most (mlx5 lists about 2,000 with many queues).
  static constexpr std::uint32_t kMaxStats = 16384;

  KernelEthtoolStats() = default;
  ~KernelEthtoolStats() override;
  KernelEthtoolStats(const KernelEthtoolStats&) = delete;
  KernelEthtoolStats& operator=(const KernelEthtoolStats&) = delete;

  std::optional<std::map<std::string, std::uint64_t>> read(const std::string& netdev,
                                                           const std::string& filter) override;

 private:
  int socket_ = -1;
};

}  // namespace pai::checks
