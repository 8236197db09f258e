#include "libpai/plan.h"

namespace pai {

const Placement* find_placement(const Plan& plan, const std::string& role, int index) {
  // place() lays placements out role by role, so the expected slot is found in
  // O(roles); a plan laid out differently still gets a correct, slower answer.
  std::size_t offset = 0;
  for (const Role& r : plan.roles) {
    if (r.name == role) {
      std::size_t at = offset + static_cast<std::size_t>(index);
      if (index >= 0 && index < r.instances && at < plan.placements.size() &&
          plan.placements[at].role == role && plan.placements[at].index == index) {
        return &plan.placements[at];
      }
      break;
    }
    offset += static_cast<std::size_t>(r.instances > 0 ? r.instances : 0);
  }
  for (const Placement& p : plan.placements) {
    if (p.role == role && p.index == index) return &p;
  }
  return nullptr;
}

const Role* find_role(const Plan& plan, const std::string& name) {
  for (const Role& role : plan.roles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

bool holds_ranks(const Plan& plan, const Role& role) {
  return !(plan.framework == Framework::Mpi && role.name == "launcher");
}

int process_count(const Plan& plan) {
  int count = 0;
  for (const Role& role : plan.roles) count += role.instances * role.nproc_per_node;
  return count;
}

int last_rank(const Plan& plan, const Placement& placement) {
  const Role* role = find_role(plan, placement.role);
  return placement.first_rank + (role != nullptr ? role->nproc_per_node : 1) - 1;
}

}  // namespace pai
