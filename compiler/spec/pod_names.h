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

/// `<job>-launcher`: the pod of an MPIJob's launcher.
std::string launcher_pod_name(const std::string& job);
/// `<job>-master-0`: the pod of a PyTorchJob's node rank 0.
std::string master_pod_name(const std::string& job);
/// `<job>-worker-<index>`: the pod of every other instance, counted from 0 in rank order.
std::string worker_pod_name(const std::string& job, int index);

/// The longest of the pod names `plan`'s instances get (by the roles' instance counts; no
/// placement needed): `<name>-master-0`, `<name>-launcher` or `<name>-worker-<largest index>`.
std::string longest_pod_name(const Plan& plan);

}  // namespace pai
