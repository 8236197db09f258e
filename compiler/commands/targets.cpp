#include "compiler/commands/targets.h"

#include "compiler/targets/bare/bare_target.h"
#include "compiler/targets/k8s/k8s_target.h"
#include "compiler/targets/slurm/slurm_target.h"

namespace pai {

const std::vector<const Target*>& all_targets() {
  static const BareTarget bare;
  static const KubernetesTarget k8s;
  static const SlurmTarget slurm;
  static const std::vector<const Target*> targets = {&bare, &k8s, &slurm};
  return targets;
}

const Target* find_target(std::string_view name) {
  for (const Target* target : all_targets()) {
    if (target->name() == name) return target;
  }
  return nullptr;
}

}  // namespace pai
