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
//   running (e.g. `/usr/sbin/sshd -De`).
#pragma once

#include <string>

#include "compiler/diagnostics.h"
#include "libpai/plan.h"

namespace pai {

/// Where the plan and token are mounted in every pod.
inline constexpr const char* kPodPlanDir = "/etc/pai";
/// The image used when the spec names none (with a warning): it lacks pai-launch.
inline constexpr const char* kPodDefaultImage = "debian:12";

/// Findings about running `plan` on Kubernetes, as warnings located at `spec`: no image.
void check_for_k8s(const Plan& plan, const Location& spec, Diagnostics& diags);

/// `plan` as the pods run it: runtime host (the pod is the container, so each role's
/// launch argv is its command), no spares (Kubernetes reschedules pods), and an inventory of
/// the pods' names, placed again: PyTorchJob `<name>-master-0` then `<name>-worker-<i>`;
/// MPIJob `<name>-launcher` and `<name>-worker-<i>` (addresses under the MPI Operator's
/// `<name>-worker` service). Each host keeps the slots of the host it replaces.
Plan plan_for_pods(const Plan& plan);

/// The Kubeflow manifest (k8s/job.yaml) of a plan made by plan_for_pods(): a comment with
/// the kubectl commands that create the ConfigMap and Secret, then the PyTorchJob or
/// MPIJob. Deterministic.
std::string render_k8s_manifest(const Plan& plan);

}  // namespace pai
