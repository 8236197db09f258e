#include "compiler/spec/pod_names.h"

#include <vector>

namespace pai {

std::string jobset_host_name(const std::string& job, const std::string& replicated_job, int index) {
  return job + "-" + replicated_job + "-0-" + std::to_string(index);
}

std::string launcher_pod_name(const std::string& job) { return job + "-launcher"; }

std::string master_pod_name(const std::string& job) { return job + "-master-0"; }

std::string worker_pod_name(const std::string& job, int index) {
  return job + "-worker-" + std::to_string(index);
}

namespace {

// The last pod of each kind the job's `instances` get, `launcher` of them in an MPI launcher.
std::vector<std::string> last_pod_names(const Plan& plan, int instances, const Role* launcher) {
  const int workers = instances - (launcher ? launcher->instances : 0);
  std::vector<std::string> names;
  if (plan.kubernetes.api == KubernetesApi::TrainerV2) {
    // JobSet counts the random suffix of the pod names (its webhook checks the longest).
    if (launcher) {
      names.push_back(jobset_host_name(plan.name, kTrainerLauncherJob, 0) + kPodRandomSuffix);
    }
    if (workers > 0) {
      names.push_back(jobset_host_name(plan.name, kTrainerNodeJob, workers - 1) + kPodRandomSuffix);
    }
    return names;
  }
  // A PyTorchJob's Master is node rank 0; an MPIJob has no Master.
  const bool master = plan.framework != Framework::Mpi;
  if (launcher) names.push_back(launcher_pod_name(plan.name));
  if (master) names.push_back(master_pod_name(plan.name));
  const int rest = workers - (master ? 1 : 0);
  if (rest > 0) names.push_back(worker_pod_name(plan.name, rest - 1));
  return names;
}

}  // namespace

std::string longest_pod_name(const Plan& plan) {
  int instances = 0;
  for (const Role& role : plan.roles) instances += role.instances;
  const Role* launcher = plan.framework == Framework::Mpi ? find_role(plan, "launcher") : nullptr;
  std::string longest;
  for (const std::string& name : last_pod_names(plan, instances, launcher)) {
    if (name.size() > longest.size()) longest = name;
  }
  return longest;
}

}  // namespace pai
