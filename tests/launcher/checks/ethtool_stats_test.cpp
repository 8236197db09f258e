#include "launcher/checks/ethtool_stats.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

namespace ethtool_stats_test {

using pai::checks::KernelEthtoolStats;

namespace {

// Runs `body` in a child in a network namespace of its own (root only) and returns what it
// wrote to its stdout pipe, or "" when the namespace could not be made.
template <class Body>
std::string in_new_netns(Body body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::unshare(CLONE_NEWNET) != 0) ::_exit(3);
    const std::string out = body();
    (void)!::write(fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

}  // namespace

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
