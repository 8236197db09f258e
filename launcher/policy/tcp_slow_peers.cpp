#include "launcher/policy/tcp_slow_peers.h"

#include <algorithm>
#include <utility>

#include "launcher/policy/outliers.h"

namespace pai::launcher {

std::vector<std::string> slow_peers(const std::map<std::string, std::int64_t>& peer_rtt_us,
                                    double factor, std::int64_t min_excess_us) {
  if (peer_rtt_us.size() == 1) {
    const auto& [address, rtt] = *peer_rtt_us.begin();
    return rtt >= min_excess_us ? std::vector<std::string>{address} : std::vector<std::string>{};
  }
  std::vector<std::pair<double, const std::string*>> peers;  // (rtt, address), sorted
  for (const auto& [address, rtt] : peer_rtt_us) {
    peers.emplace_back(static_cast<double>(rtt), &address);
  }
  std::sort(peers.begin(), peers.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<double> rtts;
  for (const auto& peer : peers) rtts.push_back(peer.first);
  std::vector<std::string> slow;
  for (const std::size_t i :
       high_outliers(rtts, factor, static_cast<double>(min_excess_us), kMaxSlowPeers)) {
    slow.push_back(*peers[i].second);
  }
  return slow;
}

}  // namespace pai::launcher
