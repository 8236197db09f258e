#include "launcher/node/tc_link_shaper.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "launcher/checks/child_process.h"
#include "launcher/net/interface_address.h"
#include "launcher/os/process.h"

namespace pai::launcher {

namespace {

constexpr char kHandle[] = "7ead:";
constexpr char kSparedClass[] = "7ead:1";
constexpr char kFaultClass[] = "7ead:2";
constexpr auto kTcTimeout = std::chrono::seconds(10);
constexpr std::size_t kOutputCap = 2048;
// Where tc lives when the launcher's PATH lacks the sbin folders (a user's shell).
constexpr char kTcPath[] = "/usr/sbin:/sbin:/usr/bin:/bin";

// Runs `tc args...`: "" when it exited 0, else what it said.
std::string run_tc(const std::string& tc, const std::vector<std::string>& args) {
  std::vector<std::string> argv{tc};
  argv.insert(argv.end(), args.begin(), args.end());
  const checks::ChildOutcome outcome = checks::run_in_child(
      [&argv](int fd) {
        const int null = ::open("/dev/null", O_RDONLY);
        if (null >= 0) ::dup2(null, 0);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        std::vector<char*> pointers;
        for (const std::string& a : argv) pointers.push_back(const_cast<char*>(a.c_str()));
        pointers.push_back(nullptr);
        ::execv(pointers[0], pointers.data());
        const std::string message = "cannot execute " + argv[0] + ": " + std::strerror(errno);
        (void)!::write(2, message.data(), message.size());
        return 127;
      },
      kTcTimeout, kOutputCap);
  if (outcome.ending == checks::ChildOutcome::Exited && outcome.code == 0) return "";
  std::string said = checks::output_tail(outcome);
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  std::string command = "tc";
  for (const std::string& a : args) command += " " + a;
  return command + " " + checks::describe_ending(outcome, kTcTimeout) +
         (said.empty() ? "" : ": " + said);
}

}  // namespace

std::vector<std::vector<std::string>> tc_fault_commands(DrillFault fault,
                                                        const std::string& interface,
                                                        int spared_port) {
  const std::string port = std::to_string(spared_port);
  const bool drop = fault == DrillFault::DroppedLink;
  const std::string rate = drop ? "100gbit" : kSlowLinkRate;
  std::vector<std::vector<std::string>> out = {
      {"qdisc", "add", "dev", interface, "root", "handle", kHandle, "htb", "default", "1"},
      {"class", "add", "dev", interface, "parent", kHandle, "classid", kSparedClass, "htb", "rate",
       "100gbit"},
      {"class", "add", "dev", interface, "parent", kHandle, "classid", kFaultClass, "htb", "rate",
       rate, "ceil", rate},
  };
  // Filters of one priority must share a protocol: the coordinator's port first, both ways
  // (and IPv6's neighbour discovery), then every other IPv4 and IPv6 packet into the fault's
  // class. A dropped packet is sent back in as if received, where it is not for this host and
  // goes: TCP counts it sent, so its retransmits and backoff grow as on a lossy wire (a packet
  // dropped by the qdisc itself fails its send, which TCP counts as neither).
  int prio = 1;
  auto filter = [&](const char* protocol, std::vector<std::string> match, const char* flow) {
    std::vector<std::string> f{"filter", "add",      "dev",    interface, "parent",
                               kHandle,  "protocol", protocol, "prio",    std::to_string(prio++),
                               "u32"};
    f.insert(f.end(), match.begin(), match.end());
    f.insert(f.end(), {"flowid", flow});
    if (drop && flow == std::string(kFaultClass)) {
      f.insert(f.end(), {"action", "mirred", "ingress", "redirect", "dev", interface});
    }
    out.push_back(std::move(f));
  };
  for (const char* way : {"dport", "sport"}) {
    filter("ip", {"match", "ip", way, port, "0xffff"}, kSparedClass);
  }
  filter("ip", {"match", "u32", "0", "0"}, kFaultClass);
  for (const char* way : {"dport", "sport"}) {
    filter("ipv6", {"match", "ip6", way, port, "0xffff"}, kSparedClass);
  }
  filter("ipv6", {"match", "ip6", "protocol", "58", "0xff"}, kSparedClass);  // ICMPv6
  filter("ipv6", {"match", "u32", "0", "0"}, kFaultClass);
  return out;
}

std::vector<std::string> tc_undo_command(const std::string& interface) {
  return {"qdisc", "del", "dev", interface, "root", "handle", kHandle};
}

TcLinkShaper::TcLinkShaper(std::string coordinator_address, int coordinator_port)
    : coordinator_address_(std::move(coordinator_address)), coordinator_port_(coordinator_port) {}

TcLinkShaper::~TcLinkShaper() { unshape(); }

std::string TcLinkShaper::shape(DrillFault fault, int seconds) {
  if (!on_link(fault)) return std::string(to_string(fault)) + " is not a link fault";
  if (!interface_.empty()) unshape();  // another fault replaces it
  std::string why;
  const std::string interface = net::interface_towards(coordinator_address_, &why);
  if (interface.empty()) return "cannot tell the node's link: " + why;
  if (interface == "lo") {
    return "this node reaches the coordinator over the loopback interface: a tc rule there "
           "would slow every connection of the host, the other launchers' too; link faults "
           "need nodes with interfaces of their own (hosts, network namespaces)";
  }
  if (tc_.empty()) {
    const char* path = std::getenv("PATH");
    tc_ = search_path("tc", std::string(path != nullptr ? path : "") + ":" + kTcPath);
    if (tc_.empty()) return "no tc program (iproute2) on this node";
  }
  for (const auto& command : tc_fault_commands(fault, interface, coordinator_port_)) {
    if (std::string failed = run_tc(tc_, command); !failed.empty()) {
      run_tc(tc_, tc_undo_command(interface));  // what went in before it
      return failed;
    }
  }
  interface_ = interface;
  // Off again by itself should this launcher be gone by then; only this rule's handle.
  std::vector<std::string> undo{tc_};
  for (const std::string& word : tc_undo_command(interface)) undo.push_back(word);
  try {
    undo_.start(undo, seconds);
  } catch (const std::exception& e) {
    unshape();
    return std::string("cannot start the rule's delayed undo: ") + e.what();
  }
  return "";
}

std::string TcLinkShaper::unshape() {
  if (interface_.empty()) return "";
  undo_.cancel();
  std::string failed = run_tc(tc_, tc_undo_command(interface_));
  interface_.clear();
  return failed;
}

}  // namespace pai::launcher
