// A small plan for the check tests: one role "worker" with one instance on host "node-0".
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai::checks::test {

/// The fake libcuda.so.1 built from fixtures/fake_cuda.c.
inline const std::string kFakeCuda = PAI_BINARY_DIR "/launcher/checks/libpai_fake_cuda.so";
/// The fake libnccl.so.2 built from fixtures/fake_nccl.c.
inline const std::string kFakeNccl = PAI_BINARY_DIR "/launcher/checks/libpai_fake_nccl.so";
/// The fake libnvidia-ml.so.1 built from fixtures/fake_nvml.c.
inline const std::string kFakeNvml = PAI_BINARY_DIR "/launcher/checks/libpai_fake_nvml.so";
/// The fake libcublasLt.so.13 built from fixtures/fake_cublaslt.c.
inline const std::string kFakeCublasLt = PAI_BINARY_DIR "/launcher/checks/libpai_fake_cublaslt.so";
/// A library path that does not exist.
inline const std::string kMissingLibrary = "libpai-missing-for-tests.so.1";
/// The fixture copy of /sys/class/infiniband.
inline const std::string kInfinibandFixture =
    PAI_SOURCE_DIR "/tests/launcher/checks/fixtures/infiniband";

/// A one-node plan asking for `gpus` GPUs, with no fabric, mounts, output or ports.
inline Plan one_node_plan(int gpus = 0) {
  Plan plan;
  plan.name = "checks-test";
  Role role;
  role.name = "worker";
  role.resources.gpu = gpus;
  plan.roles.push_back(role);
  Placement placement;
  placement.role = "worker";
  placement.host = {"node-0", "127.0.0.1", 0};
  plan.placements.push_back(placement);
  plan.nodes = 1;
  plan.world_size = 1;
  plan.sanity_check.checks = {"gpu", "burn", "nccl", "network", "mounts", "disk"};
  return plan;
}

}  // namespace pai::checks::test
