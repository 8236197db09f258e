#include "compiler/targets/k8s/kubeflow_manifest.h"

#include <algorithm>
#include <cstdint>

#include "compiler/targets/k8s/k8s_manifest.h"
#include "compiler/targets/k8s/pod_template.h"
#include "compiler/targets/time_limit.h"

namespace pai {

namespace {

bool is_mpi(const Plan& plan) { return plan.framework == Framework::Mpi; }

int worker_slots(const Plan& plan) {
  int slots = 1;
  for (const Role& role : plan.roles) {
    if (role.name != "launcher") slots = std::max(slots, role.nproc_per_node);
  }
  return slots;
}

// backoffLimit 0 and restartPolicy Never (replica()): pai-launch's restart budget is the
// only one (see kubeflow_manifest.h).
Yaml run_policy(const Plan& plan) {
  const Kubernetes& k = plan.kubernetes;
  Yaml policy = Yaml::map();
  policy.set("cleanPodPolicy", "Running");
  policy.set("backoffLimit", Yaml::integer(0));
  if (const std::int64_t deadline = scheduler_deadline_seconds(plan); deadline > 0) {
    policy.set("activeDeadlineSeconds", Yaml::integer(deadline));
  }
  if (k.ttl_seconds >= 0) policy.set("ttlSecondsAfterFinished", Yaml::integer(k.ttl_seconds));
  // Volcano schedules the operator's PodGroup, which schedulingPolicy describes.
  if (k.gang || k.scheduler == PodScheduler::Volcano) {
    // Every pod by default: pai-launch's rendezvous waits for all of them.
    const int min_available =
        k.min_available > 0 ? k.min_available : static_cast<int>(plan.placements.size());
    Yaml& gang = policy.set("schedulingPolicy", Yaml::map());
    gang.set("minAvailable", Yaml::integer(min_available));
    if (!k.queue.empty()) gang.set("queue", k.queue);
    if (!k.priority_class.empty()) gang.set("priorityClass", k.priority_class);
  }
  // Kueue admits a job it holds suspended, and unsuspends it.
  if (!k.kueue_queue.empty()) policy.set("suspend", Yaml::boolean(true));
  return policy;
}

Yaml replica(const Plan& plan, const PodGroup& group) {
  Yaml out = Yaml::map();
  out.set("replicas", Yaml::integer(group.replicas));
  out.set("restartPolicy", "Never");
  out.set("template", pod_template(plan, group, PodController::Kubeflow));
  return out;
}

}  // namespace

std::string render_kubeflow_job(const Plan& plan) {
  const char* kind = is_mpi(plan) ? "MPIJob" : "PyTorchJob";
  Yaml job = Yaml::map();
  job.set("apiVersion", is_mpi(plan) ? "kubeflow.org/v2beta1" : "kubeflow.org/v1");
  job.set("kind", kind);
  Yaml& metadata = job.set("metadata", Yaml::map());
  metadata.set("name", plan.name);
  metadata.set("labels", job_labels(plan));
  Yaml& spec = job.set("spec", Yaml::map());
  if (is_mpi(plan)) spec.set("slotsPerWorker", Yaml::integer(worker_slots(plan)));
  spec.set("runPolicy", run_policy(plan));
  Yaml& replicas = spec.set(is_mpi(plan) ? "mpiReplicaSpecs" : "pytorchReplicaSpecs", Yaml::map());
  for (const PodGroup& group : pod_groups(plan, PodController::Kubeflow)) {
    replicas.set(group.name, replica(plan, group));
  }
  return manifest_header(plan, std::string("Kubeflow ") + kind) + emit_yaml(job) + "\n";
}

}  // namespace pai
