// The `gpu` check: the CUDA driver works, the node has the GPUs the plan asks for, of one
// model, with ECC on; with NVML, no pending or failed row remaps, no volatile uncorrectable
// ECC errors, no hardware/thermal/power-brake throttling and full-width PCIe links.
#pragma once

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::checks {

/// The GPU count `placement`'s role asks for per instance (resources.gpu).
int expected_gpus(const Plan& plan, const Placement& placement);

/// Runs the gpu check in a child process (isolated_check.h) killed at `timeout_seconds`.
/// Without a CUDA driver: Skipped "no CUDA driver (...)". Facts: "driver" (the kernel driver's
/// version, from NVML), "cuda" (the driver API version), "gpu_model", "gpu_count", compared
/// across nodes by the coordinator.
CheckResult run_gpu_check(const Plan& plan, const Placement& placement, const CheckOptions& options,
                          std::int64_t timeout_seconds);

}  // namespace pai::checks
