// The `burn` check: GEMM on every GPU at once for sanityCheck.burn.seconds, with fixed inputs,
// through cuBLASLt (BF16, and FP8 where the GPU has it) or, without cuBLASLt, the embedded WMMA
// kernel; NVML watched meanwhile. Judged by burn_analysis.h (corruption vote, throughput) and
// gpu_health.h (throttling, Xid, ECC, remapped rows).
#pragma once

#include <cstdint>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "launcher/checks/gpu_burner.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Runs the burn in a child process killed at max(timeout_seconds, burn.seconds + 30). Skipped
/// "built without GPU kernels" in a PAI_GPU_KERNELS=OFF build, "no CUDA driver (...)" without a
/// driver, "no GPU on this node" without devices. The figure is the median per-GPU TFLOPS of
/// BF16 (of the embedded kernel without cuBLASLt); the fact "engine" is "cuBLASLt" or "WMMA".
/// Thresholds, baselines and FP8 come from options.burn, the floor from the plan.
CheckResult run_burn_check(const Plan& plan, const CheckOptions& options,
                           std::int64_t timeout_seconds);

}  // namespace pai::checks
