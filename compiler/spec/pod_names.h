// What a job's pods are called on Kubernetes (design §9), settled by the spec alone: the pods'
// names and the volumes and mount pai-compile adds to every pod. The spec's rules hold the
// spec against them whatever the target (design §3: the job's name is usable as a Kubernetes
// name), and the Kubernetes target (targets/k8s/k8s_manifest.h) names its pods with them.
#pragma once

#include <cstddef>
#include <string>

#include "libpai/plan.h"

namespace pai {

/// Where the plan and token are mounted in every pod.
inline constexpr const char* kPodPlanDir = "/etc/pai";
/// Names of the volumes pai-compile adds to every pod: the plan and token, /dev/shm, output.
inline constexpr const char* kPodPlanVolume = "pai-plan";
inline constexpr const char* kPodShmVolume = "pai-shm";
inline constexpr const char* kPodOutputVolume = "pai-output";
/// Pod and host names are DNS labels: at most this many characters.
inline constexpr std::size_t kMaxPodNameLength = 63;

/// The replicated jobs of a Trainer v2 job's JobSet: `node` runs every instance (the one
/// Trainer's TrainJob sizes, its `trainer` ancestor), `launcher` an mpi job's launcher role.
inline constexpr const char* kTrainerNodeJob = "node";
inline constexpr const char* kTrainerLauncherJob = "launcher";
/// What stands for the 5 random characters Kubernetes appends to a Job's pod names, which
/// JobSet counts when it checks that they fit a DNS label.
inline constexpr const char* kPodRandomSuffix = "-xxxxx";

/// `<job>-<replicated job>-0-<index>`: the host name JobSet gives pod `index` of the one Job
/// of a replicated job (`<jobset>-<replicatedJob>-<jobIndex>-<podIndex>`); Trainer names the
/// JobSet after the TrainJob.
std::string jobset_host_name(const std::string& job, const std::string& replicated_job, int index);

/// `<job>-launcher`: the pod of an MPIJob's launcher.
std::string launcher_pod_name(const std::string& job);
/// `<job>-master-0`: the pod of a PyTorchJob's node rank 0.
std::string master_pod_name(const std::string& job);
/// `<job>-worker-<index>`: the pod of every other instance, counted from 0 in rank order.
std::string worker_pod_name(const std::string& job, int index);

/// The longest of the pod names `plan`'s instances get under its `kubernetes.api` (by the
/// roles' instance counts; no placement needed): for PyTorchJob and MPIJob `<name>-master-0`,
/// `<name>-launcher` or `<name>-worker-<largest index>`; for Trainer v2
/// `<name>-node-0-<largest index>` or `<name>-launcher-0-0`, followed by kPodRandomSuffix.
std::string longest_pod_name(const Plan& plan);

}  // namespace pai
