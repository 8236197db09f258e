// The Kubeflow v1 manifests (kubernetes.api pytorchjob or mpijob), kept for clusters that
// still run the training operator (release 1.9, "legacy v1") or mpi-operator:
//
//   PyTorchJob (kubeflow.org/v1) for every framework but mpi: Master = the master role's
//   instance 0 (node rank 0), Worker = node ranks 1.., whatever their role (one template per
//   replica type: pod_template.h).
//   MPIJob (kubeflow.org/v2beta1) for mpi: Launcher = the `launcher` role, Worker = the
//   other instances, slotsPerWorker = their nprocPerNode. mpirun on the launcher reaches the
//   workers through the MPI Operator's ssh setup, so the workers' command should keep sshd
//   running (e.g. `/usr/sbin/sshd -De`). Needs mpi-operator 0.5 or later: pods are addressed
//   as `<pod>.<name>`, under the one headless Service named after the job.
//
// The restart budget is pai-launch's alone: every replica has restartPolicy Never and the job
// backoffLimit 0, because a pod that Kubernetes restarted would start pai-launch over with a
// fresh budget (maxRestarts twice over, and again for each pod restart). pai-launch exits
// non-zero only once its own policy gave up, so the job fails then. runPolicy also carries
// activeDeadlineSeconds (timeLimit), ttlSecondsAfterFinished, gang scheduling
// (schedulingPolicy; every pod for Volcano) and, for Kueue, suspend.
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai {

/// k8s/job.yaml for a PyTorchJob or MPIJob (by the plan's framework) of a plan made by
/// plan_for_pods(): a comment with the kubectl commands that create the ConfigMap and
/// Secret, then the job. Deterministic.
std::string render_kubeflow_job(const Plan& plan);

}  // namespace pai
