#include "libpai/hostfile.h"

#include <algorithm>

namespace pai {

std::string render_hostfile(const Plan& plan, HostfileStyle style,
                            const std::vector<std::string>& exclude_roles) {
  std::vector<bool> excluded(plan.roles.size(), false);
  for (std::size_t r = 0; r < plan.roles.size(); ++r) {
    excluded[r] = std::find(exclude_roles.begin(), exclude_roles.end(), plan.roles[r].name) !=
                  exclude_roles.end();
  }
  std::string out;
  out.reserve(plan.placements.size() * 24);
  for (const Placement& p : plan.placements) {
    auto r = static_cast<std::size_t>(p.role_index);
    if (r >= plan.roles.size() || plan.roles[r].name != p.role) continue;
    if (excluded[r]) continue;
    out += p.host.address;
    out += style == HostfileStyle::OpenMpi ? " slots=" : ":";
    out += std::to_string(plan.roles[r].nproc_per_node);
    out += '\n';
  }
  return out;
}

}  // namespace pai
