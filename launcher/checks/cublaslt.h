// cuBLASLt, opened at run time (libcublasLt.so.13 or libcublasLt.so) for the burn's BF16 and FP8
// GEMMs, so that pai-launch links nothing from CUDA. Only this file and cublaslt.cpp know
// cuBLASLt's symbols; the burn sees one square GEMM it can run on a stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "launcher/checks/cuda_driver.h"

namespace pai::checks {

/// The input types the burn runs through cuBLASLt; the output is BF16 and the accumulation FP32
/// in both.
enum class LtPrecision { Bf16, Fp8 };

/// "bf16" or "fp8".
const char* to_string(LtPrecision precision);

/// Bytes of one element of an input matrix: 2 for BF16, 1 for FP8 (E4M3).
std::size_t input_bytes(LtPrecision precision);

struct CublasLtApi;

/// An opened cuBLASLt library.
class CublasLt {
 public:
  /// Opens the first of `libraries` that loads and has every entry point the burn uses. Null
  /// with `*reason` set otherwise: "no cuBLASLt (libcublasLt.so.13: cannot open ...; ...)".
  static std::unique_ptr<CublasLt> open(const std::vector<std::string>& libraries,
                                        std::string* reason);
  /// Closes the library.
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  /// The library name that opened, as given.
  const std::string& library() const { return library_; }
  /// cublasLtGetVersion's value, e.g. 130100.
  std::size_t version() const { return version_; }
  /// The entry points, all non-null.
  const CublasLtApi& api() const { return *api_; }

 private:
  CublasLt();
  void* handle_ = nullptr;
  std::string library_;
  std::size_t version_ = 0;
  std::unique_ptr<CublasLtApi> api_;
};

/// "cuBLAS status 15 (CUBLAS_STATUS_NOT_SUPPORTED)".
std::string describe_cublas_status(int status);

/// One n x n GEMM, D = A^T x B ("TN", the layout FP8 requires), planned once for the current
/// CUDA context: inputs of `precision`, BF16 output, FP32 accumulation, the algorithm
/// cuBLASLt's heuristic ranks first (the same on every GPU of one model, so outputs compare
/// bit for bit).
class LtGemm {
 public:
  /// Plans the GEMM on the current context with a workspace of `workspace_bytes` at
  /// `workspace`. Null with `*error` set ("cublasLtMatmulAlgoGetHeuristic found no algorithm
  /// for fp8 8192x8192", "cublasLtCreate failed: cuBLAS status 3 (...)").
  static std::unique_ptr<LtGemm> plan(const CublasLt& library, LtPrecision precision, int n,
                                      cuda::DevicePtr workspace, std::size_t workspace_bytes,
                                      std::string* error);
  /// Releases the descriptors and the handle.
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  /// Enqueues D = A^T x B on `stream`; the cuBLAS status (0 = success).
  int run(cuda::DevicePtr a, cuda::DevicePtr b, cuda::DevicePtr d, cuda::Stream stream) const;

 private:
  struct State;
  explicit LtGemm(const CublasLt& library);
  std::unique_ptr<State> state_;
};

}  // namespace pai::checks
