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

nlohmann::json host_changes(const std::vector<Host>& base, const std::vector<Host>& hosts) {
  nlohmann::json changes = nlohmann::json::array();
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const Host& h = hosts[i];
    if (i < base.size() && base[i].name == h.name && base[i].address == h.address &&
        base[i].slots == h.slots) {
      continue;
    }
    changes.push_back(
        {{"instance", i}, {"name", h.name}, {"address", h.address}, {"slots", h.slots}});
  }
  return changes;
}

std::vector<Host> apply_host_changes(std::vector<Host> base, const nlohmann::json& changes) {
  if (!changes.is_array()) throw ProtocolError("assign: hosts: expected an array");
  for (const nlohmann::json& c : changes) {
    const bool well_formed =
        c.is_object() && c.contains("instance") && c["instance"].is_number_unsigned() &&
        c.contains("name") && c["name"].is_string() && c.contains("address") &&
        c["address"].is_string() && c.contains("slots") && c["slots"].is_number_integer();
    if (!well_formed) {
      throw ProtocolError(
          "assign: hosts: each change needs an instance, a string name and address and an "
          "integer slots");
    }
    const auto i = c["instance"].get<std::uint64_t>();
    if (i >= base.size()) {
      throw ProtocolError("assign: hosts: instance " + std::to_string(i) +
                               " is not in the plan (" + std::to_string(base.size()) +
                               " instances)");
    }
    base[i] = Host{c["name"].get<std::string>(), c["address"].get<std::string>(),
                   c["slots"].get<int>()};
  }
  return base;
}

}  // namespace pai::net
