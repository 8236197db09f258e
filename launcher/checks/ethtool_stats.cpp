#include "launcher/checks/ethtool_stats.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace pai::checks {
namespace {

bool ethtool(int fd, const std::string& netdev, void* data) {
  struct ifreq ifr {};
  std::strncpy(ifr.ifr_name, netdev.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = static_cast<char*>(data);
  return ::ioctl(fd, SIOCETHTOOL, &ifr) == 0;
}

}  // namespace

KernelEthtoolStats::~KernelEthtoolStats() {
  if (socket_ >= 0) ::close(socket_);
}

std::optional<std::map<std::string, std::uint64_t>> KernelEthtoolStats::read(
    const std::string& netdev, const std::string& filter) {
  if (netdev.empty() || netdev.size() >= IFNAMSIZ) return std::nullopt;
  if (socket_ < 0) socket_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (socket_ < 0) return std::nullopt;

  // How many statistics: a sset_info with the ETH_SS_STATS bit, its one u32 of data after it.
  alignas(ethtool_sset_info) char sset[sizeof(ethtool_sset_info) + sizeof(std::uint32_t)] = {};
  auto* info = reinterpret_cast<ethtool_sset_info*>(sset);
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ull << ETH_SS_STATS;
  if (!ethtool(socket_, netdev, info) || (info->sset_mask & (1ull << ETH_SS_STATS)) == 0) {
    return std::nullopt;
  }
  const std::uint32_t n = info->data[0];
  if (n == 0 || n > kMaxStats) return std::nullopt;

  std::vector<char> strings(sizeof(ethtool_gstrings) +
                            static_cast<std::size_t>(n) * ETH_GSTRING_LEN);
  auto* gstrings = reinterpret_cast<ethtool_gstrings*>(strings.data());
  gstrings->cmd = ETHTOOL_GSTRINGS;
  gstrings->string_set = ETH_SS_STATS;
  gstrings->len = n;
  if (!ethtool(socket_, netdev, gstrings)) return std::nullopt;

  std::vector<char> values(sizeof(ethtool_stats) +
                           static_cast<std::size_t>(n) * sizeof(std::uint64_t));
  auto* stats = reinterpret_cast<ethtool_stats*>(values.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = n;
  if (!ethtool(socket_, netdev, stats)) return std::nullopt;
  // A driver that changed its count between the calls answers with another n: trust neither.
  if (gstrings->len != n || stats->n_stats != n) return std::nullopt;

  std::map<std::string, std::uint64_t> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    const char* name = reinterpret_cast<const char*>(gstrings->data) + i * ETH_GSTRING_LEN;
    std::string key(name, strnlen(name, ETH_GSTRING_LEN));
    if (filter.empty() || key.find(filter) != std::string::npos) out[key] = stats->data[i];
  }
  return out;
}

}  // namespace pai::checks
