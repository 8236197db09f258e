// The `burn` check: GEMM on every GPU at once for sanityCheck.burn.seconds, with fixed inputs;
// judged by burn_analysis.h (bit-exact results, throughput against the node median and a floor).
#pragma once

#include <cstdint>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Side of the square matrices the burn multiplies (8192: 1.1 TFLOP per GEMM).
inline constexpr int kBurnMatrixSize = 8192;

/// Runs the burn in a child process killed at max(timeout_seconds, burn.seconds + 30). Skipped
/// "built without GPU kernels" in a PAI_GPU_KERNELS=OFF build, "no CUDA driver (...)" without a
/// driver, "no GPU on this node" without devices. The figure is the median per-GPU TFLOPS.
CheckResult run_burn_check(const Plan& plan, const CheckOptions& options,
                           std::int64_t timeout_seconds);

}  // namespace pai::checks
