// The Kubeflow Trainer v2 manifests (kubernetes.api trainer-v2, the default): a training
// runtime whose JobSet runs pai-launch in every pod, and the TrainJob that refers to it.
//
//   TrainingRuntime (or ClusterTrainingRuntime, kubernetes.runtimeKind) `<name>-pai-distributed`
//   (trainer.kubeflow.org/v1alpha1): mlPolicy.numNodes and a JobSet template of one replicated
//   job per pod set (pod_template.h): `node`, Trainer's `trainer` ancestor that the TrainJob
//   sizes, runs every instance, and an mpi job's launcher role runs in `launcher`. Each is one
//   Indexed Job (parallelism = completions = its pods) whose pods JobSet names and addresses
//   `<name>-<replicatedJob>-0-<index>.<name>` (enableDNSHostnames, the subdomain being the
//   JobSet's name, which Trainer gives the TrainJob's).
//   TrainJob `<name>`: runtimeRef, trainer.numNodes, activeDeadlineSeconds (timeLimit), and for
//   Kueue the queue label and suspend.
//
// Failures: pai-launch decides them, so Kubernetes restarts nothing on its own. Each Job has
// backoffLimit 0 and a podFailurePolicy: a container that exits with one of pai-launch's
// verdicts (kPaiVerdictExitCodes, libpai/exit_codes.h: the job failed, the plan or usage was
// refused, the command could not run, the job was cancelled by a signal) fails the Job at once
// (FailJob, reason PodFailurePolicy), and the JobSet's failurePolicy fails the whole JobSet on that
// reason (FailJobSet): nothing is recreated. Any other pod failure (a pai-launch that lost its
// coordinator, kExitCoordinatorLost; pai-launch killed; a pod lost with its node) exceeds
// backoffLimit 0 and the JobSet is recreated (RestartJobSet), at most
// kubernetes.jobSetMaxRestarts times (the spec's spares, at least 1). successPolicy All:
// the job succeeded when every pod's pai-launch exited 0. ttlSecondsAfterFinished is the
// JobSet's; Volcano's or scheduler-plugins' PodGroup is the runtime's podGroupPolicy.
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai {

/// The name of the runtime rendered for the job: `<name>-pai-distributed`.
std::string trainer_runtime_name(const std::string& job);

/// k8s/job.yaml for Trainer v2 of a plan made by plan_for_pods(): a comment with the kubectl
/// commands, then the runtime and the TrainJob, two YAML documents. Deterministic.
std::string render_trainjob(const Plan& plan);

}  // namespace pai
