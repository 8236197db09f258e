#include "launcher/net/host_changes.h"

#include <string>

#include "launcher/net/frame.h"

namespace pai::net {

std::vector<Host> planned_hosts(const Plan& plan) {
  std::vector<Host> hosts;
  hosts.reserve(plan.placements.size());
  for (const Placement& p : plan.placements) hosts.push_back(p.host);
  return hosts;
}

std::vector<HostChange> host_changes(const std::vector<Host>& base,
                                     const std::vector<Host>& hosts) {
  std::vector<HostChange> changes;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const Host& h = hosts[i];
    if (i < base.size() && base[i].name == h.name && base[i].address == h.address &&
        base[i].slots == h.slots) {
      continue;
    }
    changes.push_back(HostChange{i, h.name, h.address, h.slots});
  }
  return changes;
}

std::vector<Host> apply_host_changes(std::vector<Host> base,
                                     const std::vector<HostChange>& changes) {
  for (const HostChange& c : changes) {
    if (c.instance >= base.size()) {
      throw ProtocolError("assign: hosts: instance " + std::to_string(c.instance) +
                          " is not in the plan (" + std::to_string(base.size()) + " instances)");
    }
    base[c.instance] = Host{c.name, c.address, c.slots};
  }
  return base;
}

}  // namespace pai::net
