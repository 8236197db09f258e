#include "launcher/node/node_identity.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>

namespace pai::launcher {

namespace {

// At most this many host names are listed in a message; a 10,000-node plan stays readable.
constexpr std::size_t kListedHosts = 8;

std::string host_list(const Plan& plan) {
  std::string out;
  for (std::size_t i = 0; i < plan.placements.size() && i < kListedHosts; ++i) {
    if (i > 0) out += ", ";
    out += plan.placements[i].host.name;
  }
  if (plan.placements.size() > kListedHosts) {
    out += ", ... (" + std::to_string(plan.placements.size()) + " hosts)";
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

}  // namespace

LocalIdentity local_identity() {
  LocalIdentity id;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) id.hostname = name;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
      if (it->ifa_addr == nullptr) continue;
      char text[INET6_ADDRSTRLEN] = {};
      if (it->ifa_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(it->ifa_addr)->sin_addr, text,
                  sizeof text);
      } else if (it->ifa_addr->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(it->ifa_addr)->sin6_addr, text,
                  sizeof text);
      } else {
        continue;
      }
      if (std::find(id.addresses.begin(), id.addresses.end(), text) == id.addresses.end()) {
        id.addresses.emplace_back(text);
      }
    }
    freeifaddrs(list);
  }
  return id;
}

const Placement& identify_node(const Plan& plan, const NodeHints& hints, const LocalIdentity& local,
                               std::string* how) {
  if (hints.name) {
    for (const Placement& p : plan.placements) {
      if (p.host.name == *hints.name) {
        *how = "--node " + *hints.name;
        return p;
      }
    }
    for (const Host& spare : plan.spares) {
      if (spare.name == *hints.name) {
        throw NodeError("node '" + *hints.name + "' is a spare: it runs no instance of this plan");
      }
    }
    throw NodeError("node '" + *hints.name + "' is not in the plan (hosts: " + host_list(plan) +
                    ")");
  }
  if (hints.node_rank) {
    const int n = static_cast<int>(plan.placements.size());
    if (*hints.node_rank < 0 || *hints.node_rank >= n) {
      throw NodeError("--node-rank " + std::to_string(*hints.node_rank) +
                      " is out of range: the plan has " + std::to_string(n) + " instances (0.." +
                      std::to_string(n - 1) + ")");
    }
    *how = "--node-rank " + std::to_string(*hints.node_rank);
    return plan.placements[*hints.node_rank];
  }
  const std::string short_name = local.hostname.substr(0, local.hostname.find('.'));
  for (const Placement& p : plan.placements) {
    if (!local.hostname.empty() && (p.host.name == local.hostname || p.host.name == short_name ||
                                    p.host.address == local.hostname)) {
      *how = "hostname " + local.hostname;
      return p;
    }
  }
  std::vector<const Placement*> by_address;
  for (const Placement& p : plan.placements) {
    if (std::find(local.addresses.begin(), local.addresses.end(), p.host.address) !=
        local.addresses.end()) {
      by_address.push_back(&p);
    }
  }
  if (by_address.size() == 1) {
    *how = "address " + by_address[0]->host.address;
    return *by_address[0];
  }
  if (by_address.size() > 1) {
    std::vector<std::string> names;
    for (const Placement* p : by_address) names.push_back(p->host.name);
    throw NodeError("cannot tell which host of the plan this is: hosts " + joined(names) +
                    " all have addresses of this machine; pass --node NAME or --node-rank N");
  }
  throw NodeError("cannot tell which host of the plan this is: hostname '" + local.hostname +
                  "' and addresses " + joined(local.addresses) + " match none of its hosts (" +
                  host_list(plan) + "); pass --node NAME or --node-rank N");
}

const Host* identify_spare(const Plan& plan, const NodeHints& hints, const LocalIdentity& local) {
  if (hints.node_rank) return nullptr;
  const std::string short_name = local.hostname.substr(0, local.hostname.find('.'));
  for (const Host& spare : plan.spares) {
    if (hints.name ? spare.name == *hints.name
                   : !local.hostname.empty() &&
                         (spare.name == local.hostname || spare.name == short_name)) {
      return &spare;
    }
  }
  return nullptr;
}

}  // namespace pai::launcher
