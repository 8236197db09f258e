#include "launcher/node/tc_link_shaper.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "launcher/net/interface_address.h"
#include "support/new_namespace.h"

namespace tc_link_shaper_test {

using pai::DrillFault;
using pai::launcher::kUndoMarginSeconds;
using pai::launcher::tc_fault_commands;
using pai::launcher::tc_undo_command;
using pai::launcher::TcLinkShaper;
using pai::testing::in_new_netns;
using Strings = std::vector<std::string>;

namespace {

std::string joined(const Strings& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// What `command` printed (stdout), run in the current (the test child's) network namespace.
std::string output_of(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return "popen failed";
  char buf[512];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  return out;
}

// In a new network namespace: a veth pair, its end "a" up with 10.99.0.1/24, so that the
// coordinator at 10.99.0.9 is reached through "a". False when it cannot be made.
bool veth_towards_coordinator() {
  return std::system(
             "ip link add name a type veth peer name b 2>/dev/null && "
             "ip addr add 10.99.0.1/24 dev a && ip link set dev a up && "
             "ip link set dev b up") == 0;
}

bool rule_on(const std::string& interface) {
  return output_of("tc qdisc show dev " + interface).find("htb 7ead:") != std::string::npos;
}

}  // namespace

TEST_CASE("a slow link sends everything but the coordinator's traffic through a slow class") {
  Strings lines;
  for (const auto& c : tc_fault_commands(DrillFault::SlowLink, "eth0", 29400)) {
    lines.push_back(joined(c));
  }
  CHECK(lines == Strings{
                     "qdisc add dev eth0 root handle 7ead: htb default 1",
                     "class add dev eth0 parent 7ead: classid 7ead:1 htb rate 100gbit",
                     "class add dev eth0 parent 7ead: classid 7ead:2 htb rate 5mbit ceil 5mbit",
                     "filter add dev eth0 parent 7ead: protocol ip prio 1 u32 match ip dport "
                     "29400 0xffff flowid 7ead:1",
                     "filter add dev eth0 parent 7ead: protocol ip prio 2 u32 match ip sport "
                     "29400 0xffff flowid 7ead:1",
                     "filter add dev eth0 parent 7ead: protocol ip prio 3 u32 match u32 0 0 "
                     "flowid 7ead:2",
                     "filter add dev eth0 parent 7ead: protocol ipv6 prio 4 u32 match ip6 dport "
                     "29400 0xffff flowid 7ead:1",
                     "filter add dev eth0 parent 7ead: protocol ipv6 prio 5 u32 match ip6 sport "
                     "29400 0xffff flowid 7ead:1",
                     "filter add dev eth0 parent 7ead: protocol ipv6 prio 6 u32 match ip6 "
                     "protocol 58 0xff flowid 7ead:1",
                     "filter add dev eth0 parent 7ead: protocol ipv6 prio 7 u32 match u32 0 0 "
                     "flowid 7ead:2",
                 });
  CHECK(joined(tc_undo_command("eth0")) == "qdisc del dev eth0 root handle 7ead:");
}

TEST_CASE("a dropped link sends its packets back in where they are not for the host") {
  const auto commands = tc_fault_commands(DrillFault::DroppedLink, "ens1f0", 7000);
  REQUIRE(commands.size() == 10);
  CHECK(joined(commands[2]) ==
        "class add dev ens1f0 parent 7ead: classid 7ead:2 htb rate 100gbit ceil 100gbit");
  CHECK(joined(commands[5]) ==
        "filter add dev ens1f0 parent 7ead: protocol ip prio 3 u32 match u32 0 0 flowid 7ead:2 "
        "action mirred ingress redirect dev ens1f0");
  CHECK(joined(commands[9]) ==
        "filter add dev ens1f0 parent 7ead: protocol ipv6 prio 7 u32 match u32 0 0 flowid 7ead:2 "
        "action mirred ingress redirect dev ens1f0");
  CHECK(joined(commands[3]).find("action") == std::string::npos);  // the coordinator's: spared
}

TEST_CASE("no link fault goes on loopback or for a fault of a rank") {
  std::string why;
  CHECK(pai::net::interface_towards("127.0.0.1", &why) == "lo");
  TcLinkShaper shaper("127.0.0.1", 29400);
  const std::string refused = shaper.shape(DrillFault::DroppedLink, 10);
  CHECK(refused.find("over the loopback interface") != std::string::npos);
  CHECK(shaper.interface().empty());
  CHECK(shaper.shape(DrillFault::RankHang, 10) == "rank-hang is not a link fault");
  CHECK(shaper.unshape().empty());  // none was on
}

TEST_CASE(
    "a link fault goes on the interface towards the coordinator and comes off by its "
    "handle") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to make a network namespace");
    return;
  }
  const std::string out = in_new_netns([] {
    if (!veth_towards_coordinator()) return std::string("no veth");
    std::string said;
    {
      TcLinkShaper shaper("10.99.0.9", 29400);
      const std::string refused = shaper.shape(DrillFault::DroppedLink, 30);
      said += refused.empty() ? "shaped " : "refused: " + refused + " ";
      said += shaper.interface() + " ";
      said += rule_on("a") ? "on " : "off ";
      said += output_of("tc filter show dev a").find("mirred") != std::string::npos
                  ? "dropping "
                  : "not-dropping ";
      // A second fault replaces the first.
      said += shaper.shape(DrillFault::SlowLink, 30).empty() ? "replaced " : "not-replaced ";
      said += output_of("tc class show dev a").find("rate 5Mbit") != std::string::npos
                  ? "slow "
                  : "not-slow ";
      said += shaper.unshape().empty() && !rule_on("a") ? "off " : "still-on ";
      // Someone else's root qdisc is not ours to delete.
      std::system("tc qdisc add dev a root handle 1: htb default 1");
      said += shaper.unshape().empty() && rule_on("a") == false &&
                      output_of("tc qdisc show dev a").find("htb 1:") != std::string::npos
                  ? "theirs-kept "
                  : "theirs-touched ";
      std::system("tc qdisc del dev a root");
      said += shaper.shape(DrillFault::SlowLink, 30).empty() ? "again " : "not-again ";
    }  // the shaper is destroyed with its fault on
    said += rule_on("a") ? "left-on" : "taken-off";
    return said;
  });
  CHECK(out == "shaped a on dropping replaced slow off theirs-kept again taken-off");
}

TEST_CASE("a link fault comes off by itself when its launcher is SIGKILLed") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to make a network namespace");
    return;
  }
  const std::string out = in_new_netns([] {
    if (!veth_towards_coordinator()) return std::string("no veth");
    const pid_t launcher = ::fork();
    if (launcher == 0) {
      TcLinkShaper shaper("10.99.0.9", 29400);
      if (!shaper.shape(DrillFault::SlowLink, 1).empty()) ::_exit(1);
      ::kill(::getpid(), SIGKILL);  // no destructor, no unshape
    }
    int status = 0;
    ::waitpid(launcher, &status, 0);
    if (!WIFSIGNALED(status)) return std::string("the launcher could not shape");
    std::string said = rule_on("a") ? "left-on " : "never-on ";
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(1 + kUndoMarginSeconds + 5);
    while (rule_on("a") && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    said += rule_on("a") ? "still-on" : "undone";
    return said;
  });
  CHECK(out == "left-on undone");
}

}  // namespace tc_link_shaper_test
