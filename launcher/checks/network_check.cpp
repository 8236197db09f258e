#include "launcher/checks/network_check.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <set>
#include <vector>

#include "launcher/checks/rdma_ports.h"
#include "libpai/port_range_hint.h"

namespace pai::checks {
namespace {

// Closes a socket on every path out.
struct Socket {
  int fd;
  explicit Socket(int f) : fd(f) {}
  ~Socket() {
    if (fd >= 0) close(fd);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
};

// The interface's IPv4/IPv6 addresses, or "" with the problem in `problem`.
std::string check_interface(const std::string& name, std::string* problem) {
  if (if_nametoindex(name.c_str()) == 0) {
    *problem = "interface " + name + " does not exist";
    return "";
  }
  Socket s(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (s.fd < 0 || ioctl(s.fd, SIOCGIFFLAGS, &request) != 0) {
    *problem = "interface " + name + ": cannot read its flags: " + std::strerror(errno);
    return "";
  }
  if (!(request.ifr_flags & IFF_UP)) {
    *problem = "interface " + name + " is down";
    return "";
  }
  if (!(request.ifr_flags & IFF_RUNNING)) {
    *problem = "interface " + name + " is up but has no carrier (not RUNNING)";
    return "";
  }
  std::string addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || name != a->ifa_name) continue;
      int family = a->ifa_addr->sa_family;
      if (family != AF_INET && family != AF_INET6) continue;
      // A link-local IPv6 address alone is no usable address for NCCL or Gloo.
      if (family == AF_INET6 &&
          IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr))
        continue;
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw =
          family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr);
      inet_ntop(family, raw, text, sizeof text);
      addresses += (addresses.empty() ? "" : " ") + std::string(text);
    }
    freeifaddrs(list);
  }
  if (addresses.empty()) *problem = "interface " + name + " has no IP address";
  return addresses;
}

// Problems of the RDMA devices; `found` lists what is fine.
void check_rdma(const Plan& plan, const CheckOptions& options, std::vector<std::string>& problems,
                std::vector<std::string>& found) {
  const SysfsRoot sys(options.sysfs_root);
  const std::string where = sys.root() + "/" + kInfinibandClass;
  std::vector<std::string> names = plan.fabric.hcas;
  bool named = !names.empty();
  if (!named) names = list_rdma_devices(sys);
  if (names.empty()) {
    problems.push_back("no RDMA device under " + where);
    return;
  }
  bool roce = plan.fabric.type == FabricType::Roce && plan.fabric.gid_index >= 0;
  int usable = 0;
  for (const auto& hca : names) {
    const std::string name = hca.substr(0, hca.find(':'));
    auto ports = read_rdma_ports(sys, name, roce ? plan.fabric.gid_index : -1);
    if (!ports) {
      problems.push_back("RDMA device " + name + " not found under " + where);
      continue;
    }
    const RdmaPort* active = nullptr;
    for (const auto& port : *ports) {
      if (port.active()) {
        active = &port;
        break;
      }
    }
    std::string problem;
    if (!active) {
      std::string states;
      for (const auto& port : *ports)
        states += (states.empty() ? "" : ", ") + std::to_string(port.port) + " " + port.state;
      problem = "RDMA device " + name + " has no ACTIVE port" +
                (states.empty() ? "" : " (" + states + ")");
    } else if (roce && !active->gid_configured) {
      problem = "RDMA device " + name + " port " + std::to_string(active->port) +
                " has no GID at index " + std::to_string(plan.fabric.gid_index);
    }
    if (problem.empty()) {
      ++usable;
      found.push_back(name + " port " + std::to_string(active->port) + " ACTIVE");
    } else if (named) {
      problems.push_back(problem);
    }
  }
  if (!named && usable == 0) problems.push_back("no usable RDMA device under " + where);
}

// Ports this node will listen on: its own labelled ports, plus the coordinator's and
// MASTER_PORT when they live on this host. Not MASTER_PORT when this node's launcher serves the
// ranks' store on it (masterStore launcher): from the first start on the store holds it, so the
// checks before a restart would find it taken by this very launcher, and the store's own bind
// says when another program has it.
std::set<int> reserved_ports(const Plan& plan, const Placement& placement,
                             const CheckOptions& options) {
  std::set<int> ports;
  for (const auto& [label, list] : placement.ports) ports.insert(list.begin(), list.end());
  if (plan.coordinator.port > 0 && plan.coordinator.host == placement.host.name &&
      !options.coordinator_served_here)
    ports.insert(plan.coordinator.port);
  if (plan.master.port > 0 && plan.master.host == placement.host.name &&
      plan.master_store != MasterStore::Launcher)
    ports.insert(plan.master.port);
  return ports;
}

// Why `port` cannot be bound on `address` (a numeric address of this node; any other text
// means every address), or "".
std::string port_taken(int port, const std::string& address) {
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    // Several nodes of a test cluster share one machine on addresses of their own.
    Socket own(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (own.fd < 0) return std::string("cannot open a socket: ") + std::strerror(errno);
    int one = 1;
    setsockopt(own.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr = v4;
    a.sin_port = htons(static_cast<uint16_t>(port));
    if (bind(own.fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return "";
    // Not an address of this machine (a name in the plan that only resolves elsewhere):
    // fall back to every address.
    if (errno != EADDRNOTAVAIL) return std::strerror(errno);
  }
  Socket s(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  bool v6 = s.fd >= 0;
  Socket s4(v6 ? -1 : socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int fd = v6 ? s.fd : s4.fd;
  if (fd < 0) return std::string("cannot open a socket: ") + std::strerror(errno);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int rc;
  if (v6) {
    int zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(static_cast<uint16_t>(port));
    rc = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<uint16_t>(port));
    rc = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  return rc == 0 ? "" : std::strerror(errno);
}

}  // namespace

std::string coordinator_unreachable(const std::string& address, int port, std::int64_t timeout_ms) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(address.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) return "coordinator " + address + " does not resolve: " + gai_strerror(rc);
  std::string where = "coordinator " + address + ":" + service;
  std::string problem = where + " did not answer within " + std::to_string(timeout_ms) + "ms";
  for (addrinfo* a = found; a; a = a->ai_next) {
    Socket s(socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (s.fd < 0) continue;
    int err = 0;
    if (connect(s.fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        pollfd p{s.fd, POLLOUT, 0};
        if (poll(&p, 1, static_cast<int>(timeout_ms)) <= 0) continue;
        socklen_t len = sizeof err;
        getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
    }
    if (err == 0 || err == ECONNREFUSED) {
      freeaddrinfo(found);
      return "";
    }
    problem = where + " is unreachable: " + std::strerror(err);
  }
  freeaddrinfo(found);
  return problem;
}

CheckResult run_network_check(const Plan& plan, const Placement& placement,
                              const CheckOptions& options) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> problems;
  std::vector<std::string> found;
  std::string figure;

  if (!plan.fabric.interface.empty()) {
    std::string problem;
    std::string addresses = check_interface(plan.fabric.interface, &problem);
    if (problem.empty()) {
      found.push_back(plan.fabric.interface + " up (" + addresses + ")");
      figure = plan.fabric.interface + " up";
    } else {
      problems.push_back(problem);
    }
  }
  if (plan.fabric.type == FabricType::Roce || plan.fabric.type == FabricType::Ib)
    check_rdma(plan, options, problems, found);

  std::string address =
      options.coordinator_address.empty() ? plan.coordinator.address : options.coordinator_address;
  int port = options.coordinator_address.empty() ? plan.coordinator.port : options.coordinator_port;
  if (!address.empty() && port > 0 && options.coordinator_served_here &&
      options.coordinator_address.empty()) {
    // It listens in this process already; a connect to itself would only be journaled by the
    // coordinator as a refused connection.
    found.push_back("coordinator " + address + ":" + std::to_string(port) +
                    " served by this launcher");
  } else if (!address.empty() && port > 0) {
    std::string problem = coordinator_unreachable(address, port, options.connect_timeout_ms);
    if (problem.empty()) {
      found.push_back("coordinator " + address + ":" + std::to_string(port) + " reachable");
    } else {
      problems.push_back(problem);
    }
  }

  auto ports = reserved_ports(plan, placement, options);
  int taken = 0;
  bool yielded = false;  // another launcher holds one of the ports: this one reserves no more
  for (int p : ports) {
    // Reserved first: of two launchers checking the port at once, one wins the name. Both go
    // through the ports in the same (ascending) order and the loser of one reserves none after
    // it, so that the winner gets them all: two jobs started together on one range must not
    // each take part of it and both fail.
    std::string why = options.reservations && !yielded
                          ? options.reservations->reserve(placement.host.address, p)
                          : "";
    if (!why.empty()) yielded = true;
    if (why.empty()) why = port_taken(p, placement.host.address);
    if (!why.empty()) {
      // The first names the way out: most often another job on this node holds the range.
      problems.push_back("port " + std::to_string(p) + " is not free: " + why +
                         (taken > 0 ? "" : " (" + port_range_hint(plan) + ")"));
      ++taken;
    }
  }
  if (!ports.empty() && taken == 0)
    found.push_back(std::to_string(ports.size()) +
                    (ports.size() == 1 ? " reserved port free" : " reserved ports free"));

  CheckResult result;
  result.name = "network";
  if (!problems.empty()) {
    result.status = CheckResult::Failed;
    result.summary = problems.front();
    if (problems.size() > 1)
      result.summary += " (and " + std::to_string(problems.size() - 1) + " more)";
    for (const auto& p : problems) result.detail += p + "\n";
  } else {
    result.status = found.empty() ? CheckResult::Skipped : CheckResult::Passed;
    for (const auto& f : found) result.summary += (result.summary.empty() ? "" : ", ") + f;
    if (found.empty())
      result.summary = "nothing to check: no fabric interface, coordinator or ports";
  }
  result.figure = figure;
  if (!plan.fabric.interface.empty()) result.facts["interface"] = plan.fabric.interface;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace pai::checks
