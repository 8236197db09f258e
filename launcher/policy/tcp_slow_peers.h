// Which peers a rank's TCP connections say are slow. A launcher sends only these with each
// rank's summary, so that the coordinator can tell a node whose links are all slow from its
// neighbours, whose links are slow only towards it (design §12, RankCommSlow).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pai::launcher {

/// Most peers one rank's summary names.
inline constexpr std::size_t kMaxSlowPeers = 4;

/// The addresses in `peer_rtt_us` (remote address -> median RTT of the connections to it, µs)
/// whose RTT is at least `factor` times the median of the other peers' and `min_excess_us`
/// more: slowest first, at most kMaxSlowPeers; none when every peer is alike slow (the slow
/// end is this rank's). A single peer (a ring all-reduce sends to one) has nothing to be
/// compared with here: it is named when its RTT is at least `min_excess_us`, and the
/// coordinator weighs it against the other nodes' figures.
std::vector<std::string> slow_peers(const std::map<std::string, std::int64_t>& peer_rtt_us,
                                    double factor, std::int64_t min_excess_us);

}  // namespace pai::launcher
