// One GPU's part of the burn: fixed inputs, GEMMs for a set time on the GPU's own stream, a
// digest of every output and the GPU time of every GEMM (CUDA events). Through cuBLASLt (BF16,
// then FP8 where the GPU has it) with a few GEMMs of the embedded WMMA kernel as a cross-check;
// without cuBLASLt, through the embedded kernel alone.
#pragma once

#include "launcher/checks/burn_analysis.h"
#include "launcher/checks/cublaslt.h"
#include "launcher/checks/cuda_driver.h"

namespace pai::checks {

/// Side of the square matrices the burn multiplies (8192: 1.1 TFLOP per GEMM).
inline constexpr int kBurnMatrixSize = 8192;
/// GEMMs of the embedded kernel run as a cross-check before the cuBLASLt burn.
inline constexpr int kCrossCheckGemms = 2;
/// The oldest compute capability with FP8 tensor cores (Ada, sm_89), as major * 10 + minor.
inline constexpr int kMinFp8Capability = 89;

/// How one GPU burns.
struct GpuBurnPlan {
  double seconds = 20;           ///< split evenly between BF16 and FP8 when both run
  const CublasLt* lt = nullptr;  ///< null: the embedded WMMA kernel burns alone
  bool fp8 = true;               ///< FP8 too, where the GPU has it
};

/// Burns GPU `index` of `driver` on the calling thread as `plan` says; everything it allocated
/// is released before it returns. Errors are in the result, naming the failing call.
GpuBurn burn_gpu(const CudaDriver& driver, int index, const GpuBurnPlan& plan);

}  // namespace pai::checks
