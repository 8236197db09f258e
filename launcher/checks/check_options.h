// CheckOptions: how the sanity checks run on this node, beyond what the plan says.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launcher/checks/child_containment.h"
#include "launcher/checks/port_reservations.h"
#include "launcher/checks/sysfs_root.h"
#include "libpai/plan.h"

namespace pai::checks {

/// The names of the built-in checks, in their default order; "custom" selects the plan's
/// custom checks; "fingerprint" gathers the node's facts for the coordinator's fabric lint
/// (node_fingerprint.h) and always runs after the others.
inline const std::vector<std::string> kCheckNames = {
    "gpu", "burn", "nccl", "network", "mounts", "disk", "custom", "fingerprint"};

/// The job-wide all-reduce of the nccl check: the job's GPU count, this node's first rank and
/// the ncclUniqueId every rank joins with. NCCL's bootstrap root lives in the process that made
/// the id, so the node of rank 0 makes it inside its own check (unique_id left empty) and hands
/// it out through publish_unique_id; every other node gets it through the rendezvous.
struct NcclRendezvous {
  /// The 128 bytes of an ncclUniqueId; empty on the node of rank 0.
  std::string unique_id;
  /// GPUs taking part, over all nodes.
  int ranks = 0;
  /// Rank of this node's first GPU.
  int first_rank = 0;
  /// On the node of rank 0: called in the launcher with the new id (128 bytes) as soon as the
  /// check has made it, while the check waits for the other nodes to join; the caller passes it
  /// to every other node.
  std::function<void(const std::string& unique_id)> publish_unique_id;
};

/// The expected throughput of one GPU model at one precision (the plan's
/// sanityCheck.burn.baselines).
using BurnBaseline = pai::BurnBaseline;

/// How the burn check runs on this node, beyond the plan's sanityCheck.burn (duration, floor,
/// FP8, thresholds, baselines).
struct BurnOptions {
  /// cuBLASLt libraries tried in order (the toolkit's folder is rarely on the loader's path);
  /// none found = the embedded WMMA kernel burns alone.
  std::vector<std::string> cublaslt_libraries = {
      "libcublasLt.so.13", "/usr/local/cuda/lib64/libcublasLt.so.13", "libcublasLt.so",
      "/usr/local/cuda/lib64/libcublasLt.so"};
  /// How often NVML is sampled during the burn (throttling, temperature, power, ECC).
  double health_interval_seconds = 0.5;
};

/// How to run the checks on this node; the defaults suit a real node.
struct CheckOptions {
  /// Checks to run (names from kCheckNames); empty = the plan's sanityCheck.checks followed by
  /// its custom checks.
  std::vector<std::string> only;
  /// The sysfs root every read of /sys goes through (sysfs_root.h): $PAI_SYSFS_ROOT, else
  /// /sys; tests point it at a tree built from the kernel's documented layout.
  std::string sysfs_root = SysfsRoot::from_env().root();
  /// Per built-in check; 0 = the plan's sanityCheck.timeout.
  std::int64_t timeout_seconds = 0;
  /// How long the network check waits for the coordinator to answer a TCP connect.
  std::int64_t connect_timeout_ms = 3000;
  /// Coordinator address to test; empty = the plan's coordinator (address and port).
  std::string coordinator_address;
  /// Coordinator port to test with coordinator_address.
  int coordinator_port = 0;
  /// This launcher serves the coordinator's port itself (a multi-node job's first host): the
  /// port is neither tested for being free nor connected to (the coordinator would journal
  /// the probe as a refused connection).
  bool coordinator_served_here = false;
  /// The CUDA driver library opened at run time; tests substitute a fake.
  std::string cuda_library = "libcuda.so.1";
  /// The NVML library opened at run time.
  std::string nvml_library = "libnvidia-ml.so.1";
  /// The NCCL library opened at run time.
  std::string nccl_library = "libnccl.so.2";
  /// How the burn check runs and judges.
  BurnOptions burn;
  /// Absent: the nccl check all-reduces across this node's GPUs only.
  std::optional<NcclRendezvous> nccl;
  /// Where each check's child runs (a cgroup of its own, killed with all it holds when the
  /// check ends); null = its process group alone. Not owned; outlives the checks.
  ChildContainment* containment = nullptr;
  /// Where the network check holds the ports it checked until the launcher exits
  /// (port_reservations.h), so that another job's check on this host cannot pass on them;
  /// null = probed and let go. Not owned; outlives the checks.
  PortReservations* reservations = nullptr;
};

}  // namespace pai::checks
