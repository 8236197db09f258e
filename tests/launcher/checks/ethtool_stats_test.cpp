#include "launcher/checks/ethtool_stats.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "support/new_namespace.h"

namespace ethtool_stats_test {

using pai::checks::KernelEthtoolStats;
using pai::testing::in_new_netns;

TEST_CASE("a veth's driver statistics are read through the ethtool ioctl") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to make a network namespace");
    return;
  }
  const std::string out = in_new_netns([] {
    if (std::system("ip link add pai0 type veth peer name pai1 2>/dev/null") != 0) {
      return std::string("no veth");
    }
    KernelEthtoolStats stats;
    std::string said;
    const auto all = stats.read("pai0", "");
    said += all && all->count("peer_ifindex") == 1 ? "peer_ifindex " : "none ";
    const auto filtered = stats.read("pai0", "peer_");
    said += filtered && filtered->size() == 1 ? "filtered " : "unfiltered ";
    said += stats.read("pai9", "").has_value() ? "ghost " : "missing ";
    said += stats.read("lo", "").has_value() ? "lo-stats" : "lo-none";
    return said;
  });
  REQUIRE(out != "");
  CHECK(out == "peer_ifindex filtered missing lo-none");
}

TEST_CASE("names that cannot be a netdev are refused before any ioctl") {
  KernelEthtoolStats stats;
  CHECK_FALSE(stats.read("", "").has_value());
  CHECK_FALSE(stats.read(std::string(64, 'x'), "").has_value());
}

}  // namespace ethtool_stats_test
