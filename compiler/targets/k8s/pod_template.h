// The pods of a job on Kubernetes (design §9): how its placements are grouped into sets of
// pods of one template, and that template, shared by the Kubeflow v1 manifests
// (kubeflow_manifest.h) and Trainer v2's JobSet (trainer_manifest.h).
//
// Every pod runs `pai-launch run --plan /etc/pai/plan.json --token-file /etc/pai/job.token
// --node <its host in the plan>` from the image; the plan and token are projected read-only at
// /etc/pai from a ConfigMap `<name>-pai-plan` and a Secret `<name>-pai-token`. What finds the
// host: under Kubeflow the pod's name (PAI_POD_NAME, from the downward API; the MPI launcher's
// fixed host name), under JobSet the host name JobSet gives the pod,
// `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>`, built from the pod's job index (label
// jobset.sigs.k8s.io/job-index) and completion index (annotation
// batch.kubernetes.io/job-completion-index) as PAI_JOB_INDEX and PAI_POD_INDEX.
#pragma once

#include <string>
#include <vector>

#include "compiler/targets/k8s/yaml_tree.h"
#include "libpai/plan.h"

namespace pai {

/// The image used when the spec names none (with a warning): it lacks pai-launch.
inline constexpr const char* kPodDefaultImage = "debian:12";

/// What makes the pods of a template: a Kubeflow v1 operator (PyTorchJob, MPIJob) or JobSet
/// (Kubeflow Trainer v2).
enum class PodController { Kubeflow, JobSet };

/// The env variables JobSet's pods find their host with (see above).
inline constexpr const char* kJobIndexEnv = "PAI_JOB_INDEX";
inline constexpr const char* kPodIndexEnv = "PAI_POD_INDEX";

/// A set of pods of one template: a Kubeflow replica type or a JobSet replicated job.
struct PodGroup {
  /// Kubeflow: Master, Worker or Launcher; JobSet: node or launcher (pod_names.h).
  std::string name;
  int replicas = 0;
  std::vector<const Role*> roles;  ///< distinct, in rank order
  bool coordinator = false;        ///< one of its pods runs the job's coordinator
  bool ranks = false;              ///< its pods run ranks (all but an MPI launcher)
};

/// `plan`'s placements (a plan made by plan_for_pods()) grouped in rank order. Kubeflow: the
/// first pod (the MPI launcher, else node rank 0) as `Launcher` or `Master`, every other as
/// `Worker`. JobSet: an mpi job's launcher as `launcher`, every other pod as `node`.
std::vector<PodGroup> pod_groups(const Plan& plan, PodController controller);

/// How `plan`'s rank-holding pods are networked: the spec's choice, or for `auto` host
/// network on a RoCE or InfiniBand fabric and the pod network otherwise.
PodNetwork pod_network(const Plan& plan);

/// The pod template (metadata and spec) of `group`'s pods. One template serves pods of several
/// roles: per field the largest resources of the roles, and only the env entries they agree
/// on (pai-launch gives each process its own role's env from the plan anyway). Carries the
/// host or Multus network, the RDMA resource and IPC_LOCK of rank-holding pods on RoCE or
/// InfiniBand, /dev/shm in memory, node selection, tolerations, pull secrets, the spec's
/// mounts and output (hostPath) and claims, the metrics port on the coordinator's pods,
/// Kueue's topology annotation, the Volcano scheduler. JobSet's pods also get restartPolicy
/// Never, terminationGracePeriodSeconds long enough for pai's own stop (time_limit.h), and
/// the PriorityClass of `kubernetes.schedulingPolicy` (Trainer's PodGroup reads it there).
Yaml pod_template(const Plan& plan, const PodGroup& group, PodController controller);

}  // namespace pai
