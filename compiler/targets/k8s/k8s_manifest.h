// The Kubernetes target (design §9): a plan made for pods and its manifest, k8s/job.yaml.
//
// Every pod runs `pai-launch run` from the image, so checks, restarts and the env contract
// work as on bare metal; the pods and their template are pod_template.h's. What the job
// becomes is `kubernetes.api`'s choice:
//
//   trainer-v2 (the default): a Kubeflow Trainer v2 TrainJob and the training runtime whose
//   JobSet runs the pods (trainer_manifest.h).
//   pytorchjob, mpijob: the Kubeflow v1 PyTorchJob or MPIJob, for older clusters
//   (kubeflow_manifest.h).
//
// The restart budget is pai-launch's alone: Kubernetes restarts no container and recreates
// no pod on its own, because a pod it restarted would start pai-launch over with a fresh
// budget. Each pod finds its instance by the host name the plan's inventory gives it
// (plan_for_pods()).
#pragma once

#include <string>

#include "compiler/document/diagnostics.h"
#include "compiler/spec/pod_names.h"
#include "compiler/targets/k8s/pod_template.h"
#include "compiler/targets/k8s/yaml_tree.h"
#include "libpai/plan.h"

namespace pai {

/// Findings about running `plan` on Kubernetes, located at `spec`: no image (a warning);
/// a mount named like a pai volume, several MPI launchers, a job name that starts with a
/// digit (the operators' Services need a letter first) (errors).
void check_for_k8s(const Plan& plan, const Location& spec, Diagnostics& diags);

/// `plan` as the pods run it: runtime host (the pod is the container, so each role's
/// launch argv is its command), no spares (Kubernetes reschedules pods; under Trainer v2
/// their number, at least 1, becomes the JobSet's maxRestarts, kept as
/// kubernetes.jobset_max_restarts; 0 without restarts),
/// and an inventory of the pods' host names, placed again, each host keeping the slots of the
/// host it replaces:
///   trainer-v2: `<name>-node-0-<i>` and an mpi job's `<name>-launcher-0-0` (pod_names.h),
///   addressed `<host>.<name>` (JobSet's headless Service, named after the JobSet);
///   pytorchjob: `<name>-master-0` then `<name>-worker-<i>`;
///   mpijob: `<name>-launcher` and `<name>-worker-<i>`, addressed `<pod>.<name>` (the MPI
///   Operator's headless Service).
Plan plan_for_pods(const Plan& plan);

/// k8s/job.yaml of a plan made by plan_for_pods(), for its `kubernetes.api`: a comment with
/// the kubectl commands that create the ConfigMap and Secret, then the objects.
/// Deterministic.
std::string render_k8s_manifest(const Plan& plan);

/// The comment k8s/job.yaml starts with: what it holds (`what`, e.g. "Kubeflow PyTorchJob")
/// and how to create the plan's ConfigMap and the token's Secret, then apply the file.
std::string manifest_header(const Plan& plan, const std::string& what);

/// The labels of the job's own object (PyTorchJob, MPIJob, TrainJob): managed by
/// pai-compile, and Kueue's queue label when the job has a Kueue queue.
Yaml job_labels(const Plan& plan);

}  // namespace pai
