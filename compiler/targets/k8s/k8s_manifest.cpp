#include "compiler/targets/k8s/k8s_manifest.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "compiler/targets/k8s/kubeflow_manifest.h"
#include "compiler/targets/k8s/trainer_manifest.h"
#include "libpai/placement.h"

namespace pai {

namespace {

bool is_mpi(const Plan& plan) { return plan.framework == Framework::Mpi; }
bool is_launcher(const Plan& plan, const Placement& p) {
  return is_mpi(plan) && p.role == "launcher";
}

// The host name and address of placement `p` in pods, `workers` counting the pods named so
// far that are no launcher (and, under Kubeflow, no Master).
Host pod_host(const Plan& plan, const Placement& p, int* workers) {
  std::string name;
  std::string domain;
  if (plan.kubernetes.api == KubernetesApi::TrainerV2) {
    // JobSet's pods are `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain>`, the
    // subdomain its headless Service, named after the JobSet (kubernetes-sigs/jobset:
    // constructJob sets the pod template's subdomain, the Indexed Job controller the host
    // name `<job>-<index>`), and Trainer names the JobSet after the TrainJob.
    name = is_launcher(plan, p) ? jobset_host_name(plan.name, kTrainerLauncherJob, 0)
                                : jobset_host_name(plan.name, kTrainerNodeJob, (*workers)++);
    domain = "." + plan.name;
  } else {
    if (is_launcher(plan, p)) {
      name = launcher_pod_name(plan.name);
    } else if (!is_mpi(plan) && p.node_rank == 0) {
      name = master_pod_name(plan.name);
    } else {
      name = worker_pod_name(plan.name, (*workers)++);
    }
    // Since mpi-operator 0.5 one headless Service named after the job selects the launcher
    // and the workers, and each pod's hostname and subdomain are `<pod>` and `<job>`
    // (kubeflow/mpi-operator pkg/controller/mpi_job_controller.go, commit cbe4f8aa:
    // newJobService, newWorker and newLauncherPodTemplate set Subdomain = mpiJob.Name; its
    // hostfile lists `<job>-worker-<i>.<job>.<namespace>.svc`). Up to 0.4 the Service was
    // `<job>-worker`. The namespace is left to the pods' DNS search path.
    if (is_mpi(plan)) domain = "." + plan.name;
  }
  return Host{name, name + domain, p.host.slots};
}

}  // namespace

void check_for_k8s(const Plan& plan, const Location& spec, Diagnostics& diags) {
  if (plan.image.empty()) {
    diags.warning(spec, "image",
                  std::string("--target k8s: no image given; the pods use \"") + kPodDefaultImage +
                      "\", which has neither pai-launch nor your code");
  }
  if (!plan.name.empty() && !std::isalpha(static_cast<unsigned char>(plan.name.front()))) {
    diags.error(spec, "name",
                "--target k8s: \"" + plan.name +
                    "\" starts with a digit; the training operators name Services after the "
                    "job and its pods, and a Service name must start with a letter");
  }
  for (size_t i = 0; i < plan.mounts.size(); ++i) {
    const std::string& name = plan.mounts[i].name;
    if (name == kPodPlanVolume || name == kPodShmVolume || name == kPodOutputVolume) {
      diags.error(spec, "mounts[" + std::to_string(i) + "].name",
                  "--target k8s: \"" + name + "\" is the name of a volume pai-compile adds");
    }
  }
  const Role* launcher = is_mpi(plan) ? find_role(plan, "launcher") : nullptr;
  if (launcher && launcher->instances != 1) {
    diags.error(spec, "roles.launcher.instances",
                std::string("--target k8s: ") +
                    (plan.kubernetes.api == KubernetesApi::TrainerV2 ? "the JobSet runs"
                                                                     : "an MPIJob has") +
                    " one launcher, got " + std::to_string(launcher->instances));
  }
}

Plan plan_for_pods(const Plan& plan) {
  Plan pods = plan;
  pods.runtime = Runtime::Host;
  for (Role& role : pods.roles) role.launch_argv = role.command;
  // A lost pod is replaced as a lost node is by a spare: a JobSet recreation, whose pods the
  // scheduler places on nodes that are up. At least one, spares or not, so that the death of
  // the coordinator's node (its launchers exit kExitCoordinatorLost) does not end the job.
  // Only while pai restarts at all.
  if (plan.kubernetes.api == KubernetesApi::TrainerV2 && plan.fault_tolerance.restart_enabled) {
    pods.kubernetes.jobset_max_restarts = std::max(static_cast<int>(plan.spares.size()), 1);
  }
  pods.spares.clear();
  pods.coordinator_host.clear();
  std::vector<Host> hosts;
  int workers = 0;
  for (const Placement& p : plan.placements) hosts.push_back(pod_host(plan, p, &workers));
  pods.hosts = hosts;
  place(pods, hosts);
  return pods;
}

std::string render_k8s_manifest(const Plan& plan) {
  if (plan.kubernetes.api == KubernetesApi::TrainerV2) return render_trainjob(plan);
  return render_kubeflow_job(plan);
}

std::string manifest_header(const Plan& plan, const std::string& what) {
  return "# " + plan.name + ": " + what +
         " written by pai-compile; every pod runs pai-launch.\n"
         "# From the output folder, create the plan and the token first:\n"
         "#   kubectl create configmap " +
         plan.name +
         "-pai-plan --from-file=plan.json\n"
         "#   kubectl create secret generic " +
         plan.name +
         "-pai-token --from-file=job.token\n"
         "#   kubectl apply -f k8s/job.yaml\n";
}

Yaml job_labels(const Plan& plan) {
  Yaml labels = Yaml::map();
  labels.set("app.kubernetes.io/managed-by", "pai-compile");
  if (!plan.kubernetes.kueue_queue.empty()) {
    labels.set("kueue.x-k8s.io/queue-name", plan.kubernetes.kueue_queue);
  }
  return labels;
}

}  // namespace pai
