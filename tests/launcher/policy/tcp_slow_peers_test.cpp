// The peers a rank names as slow: only those that stand out against its other peers.
#include "launcher/policy/tcp_slow_peers.h"

#include <catch2/catch.hpp>

namespace tcp_slow_peers_test {

using pai::launcher::kMaxSlowPeers;
using pai::launcher::slow_peers;
using Peers = std::map<std::string, std::int64_t>;
using Names = std::vector<std::string>;

TEST_CASE("a peer much slower than the others is named") {
  CHECK(slow_peers({{"10.0.0.1", 200}, {"10.0.0.2", 5000}, {"10.0.0.3", 210}}, 3, 1000) ==
        Names{"10.0.0.2"});
  // Two peers: each is compared with the other.
  CHECK(slow_peers({{"10.0.0.1", 200}, {"10.0.0.2", 5000}}, 3, 1000) == Names{"10.0.0.2"});
}

TEST_CASE("a single peer is named when it is slower than the margin") {
  CHECK(slow_peers({{"10.0.0.1", 9000}}, 3, 1000) == Names{"10.0.0.1"});
  CHECK(slow_peers({{"10.0.0.1", 1000}}, 3, 1000) == Names{"10.0.0.1"});
  CHECK(slow_peers({{"10.0.0.1", 999}}, 3, 1000).empty());
}

TEST_CASE("several slow peers are named slowest first, at most kMaxSlowPeers") {
  Peers peers;
  for (int i = 0; i < 10; ++i) peers["10.0.1." + std::to_string(i)] = 200;
  for (int i = 0; i < 6; ++i) peers["10.0.2." + std::to_string(i)] = 9000 + i;
  const Names slow = slow_peers(peers, 3, 1000);
  CHECK(slow == Names{"10.0.2.5", "10.0.2.4", "10.0.2.3", "10.0.2.2"});
  CHECK(slow.size() == kMaxSlowPeers);
}

TEST_CASE("no peer is named when none stands out, or there is nothing to compare") {
  CHECK(slow_peers({}, 3, 1000).empty());
  // Every peer alike slow: the slow end is this rank's own.
  CHECK(slow_peers({{"10.0.0.1", 5000}, {"10.0.0.2", 5100}, {"10.0.0.3", 4900}}, 3, 1000).empty());
  // Below the factor, or above it by less than the margin.
  CHECK(slow_peers({{"10.0.0.1", 200}, {"10.0.0.2", 500}, {"10.0.0.3", 210}}, 3, 1000).empty());
  CHECK(slow_peers({{"10.0.0.1", 200}, {"10.0.0.2", 900}, {"10.0.0.3", 210}}, 3, 1000).empty());
}

}  // namespace tcp_slow_peers_test
