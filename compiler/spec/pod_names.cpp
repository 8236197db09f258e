#include "compiler/spec/pod_names.h"

#include <vector>

namespace pai {

std::string launcher_pod_name(const std::string& job) { return job + "-launcher"; }

std::string master_pod_name(const std::string& job) { return job + "-master-0"; }

std::string worker_pod_name(const std::string& job, int index) {
  return job + "-worker-" + std::to_string(index);
}

std::string longest_pod_name(const Plan& plan) {
  int instances = 0;
  for (const Role& role : plan.roles) instances += role.instances;
  const bool mpi = plan.framework == Framework::Mpi;
  const Role* launcher = mpi ? find_role(plan, "launcher") : nullptr;
  std::vector<std::string> names;
  int workers = instances;
  if (launcher) {
    names.push_back(launcher_pod_name(plan.name));
    workers -= launcher->instances;
  } else if (!mpi) {
    names.push_back(master_pod_name(plan.name));
    workers -= 1;
  }
  if (workers > 0) names.push_back(worker_pod_name(plan.name, workers - 1));
  std::string longest;
  for (const std::string& name : names) {
    if (name.size() > longest.size()) longest = name;
  }
  return longest;
}

}  // namespace pai
