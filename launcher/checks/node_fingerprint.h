// A node's fingerprint (design §13): the facts of its software and fabric that must agree
// across the nodes of a job, gathered with every round of checks as the facts of the
// `fingerprint` check, so the coordinator can name at the rendezvous every node whose value
// differs from the majority, every setting that contradicts the plan, and on a restart what
// changed since the last good attempt. Read without loading any library: the kernel, the GPU
// driver, the NCCL library the loader finds, each of the job's RDMA ports (state, rate, MTU,
// link layer, GID type, firmware, PFC and DSCP trust against the plan's traffic class), each
// GPU's nearest port and the PCIe path to it, and the ranks' effective NCCL_* and UCX_*.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "launcher/checks/dcb_config.h"
#include "launcher/checks/rdma_ports.h"
#include "launcher/checks/sysfs_root.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Where a fingerprint's facts come from; run_fingerprint() fills it from the machine.
struct FingerprintSources {
  SysfsRoot sys;
  DcbReader* dcb = nullptr;  ///< null: PFC and trust are not read
  std::string kernel;        ///< uname's release
  /// The launcher's environment ("NAME=value"), under the plan's env for NCCL_* and UCX_*.
  std::vector<std::string> environment;
  /// Folders the loader searches for libnccl.so.2, in order.
  std::vector<std::string> library_dirs;
};

/// How a GPU reaches a NIC, as `nvidia-smi topo` names it: "PIX" (one PCIe switch), "PXB"
/// (several), "PHB" (the host bridge), "NODE" (another host bridge of the same NUMA node),
/// "SYS" (across NUMA nodes). `a` and `b` are resolved sysfs paths of PCI functions.
std::string pci_path_class(const SysfsRoot& sys, const std::string& a, const std::string& b);

/// The fingerprint of the node of `placement`: fact -> value, only facts that could be read.
std::map<std::string, std::string> node_fingerprint(const Plan& plan, const Placement& placement,
                                                    const FingerprintSources& sources);

/// The `fingerprint` check: node_fingerprint() of this machine as its facts; Passed, with the
/// number of facts as its summary.
CheckResult run_fingerprint_check(const Plan& plan, const Placement& placement,
                                  const CheckOptions& options);

}  // namespace pai::checks
