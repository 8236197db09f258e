// The Kubernetes target (design §9): a plan made for pods and its Kubeflow manifest.
//
// Every pod runs `pai-launch run` from the image, so checks, restarts and the env contract
// work as on bare metal. The plan and the job token reach the pods through a ConfigMap
// `<name>-pai-plan` (key plan.json) and a Secret `<name>-pai-token` (key job.token), both
// projected read-only at /etc/pai. Each pod finds its instance by its pod name, which the
// plan's inventory holds (plan_for_pods()).
//
//   PyTorchJob (kubeflow.org/v1) for every framework but mpi: Master = the master role's
//   instance 0 (node rank 0), Worker = node ranks 1.., whatever their role. Kubeflow has one
//   template per replica type, so a Worker pod gets, per field, the largest resources of the
//   roles its replicas run, and only the env entries those roles agree on (pai-launch gives
//   each process its own role's env from the plan anyway).
//   MPIJob (kubeflow.org/v2beta1) for mpi: Launcher = the `launcher` role, Worker = the
//   other instances, slotsPerWorker = their nprocPerNode. mpirun on the launcher reaches the
//   workers through the MPI Operator's ssh setup, so the workers' command should keep sshd
//   running (e.g. `/usr/sbin/sshd -De`). Needs mpi-operator 0.5 or later: pods are addressed
//   as `<pod>.<name>`, under the one headless Service named after the job.
//
// The restart budget is pai-launch's alone: every replica has restartPolicy Never and the job
// backoffLimit 0, because a pod that Kubernetes restarted would start pai-launch over with a
// fresh budget (maxRestarts twice over, and again for each pod restart). pai-launch exits
// non-zero only once its own policy gave up, so the job fails then.
//
// The spec's `kubernetes` section (spec/kubernetes_parser.h) adds: host network or Multus
// networks, an RDMA device-plugin resource and IPC_LOCK for the rank-holding pods of a RoCE or
// InfiniBand job, /dev/shm as a memory volume for every pod with GPUs or shm, gang
// scheduling, node selection, tolerations, image pull secrets, PersistentVolumeClaims and
// ttlSecondsAfterFinished.
#pragma once

#include <string>

#include "compiler/document/diagnostics.h"
#include "compiler/spec/pod_names.h"
#include "libpai/plan.h"

namespace pai {

/// The image used when the spec names none (with a warning): it lacks pai-launch.
inline constexpr const char* kPodDefaultImage = "debian:12";

/// Findings about running `plan` on Kubernetes, located at `spec`: no image (a warning);
/// a mount named like a pai volume, several MPI launchers, a job name that starts with a
/// digit (the operators' Services need a letter first) (errors).
void check_for_k8s(const Plan& plan, const Location& spec, Diagnostics& diags);

/// How `plan`'s rank-holding pods are networked: the spec's choice, or for `auto` host
/// network on a RoCE or InfiniBand fabric and the pod network otherwise.
PodNetwork pod_network(const Plan& plan);

/// `plan` as the pods run it: runtime host (the pod is the container, so each role's
/// launch argv is its command), no spares (Kubernetes reschedules pods), and an inventory of
/// the pods' names, placed again: PyTorchJob `<name>-master-0` then `<name>-worker-<i>`;
/// MPIJob `<name>-launcher` and `<name>-worker-<i>` (spec/pod_names.h), addressed `<pod>.<name>`
/// (the MPI Operator's headless Service). Each host keeps the slots of the host it replaces.
Plan plan_for_pods(const Plan& plan);

/// The Kubeflow manifest (k8s/job.yaml) of a plan made by plan_for_pods(): a comment with
/// the kubectl commands that create the ConfigMap and Secret, then the PyTorchJob or
/// MPIJob. Deterministic.
std::string render_k8s_manifest(const Plan& plan);

}  // namespace pai
