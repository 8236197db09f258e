// Judging a GEMM burn from what each GPU reported: bit-exact results across iterations, the
// corruption vote across GPUs (corruption_vote.h), and throughput per precision against the
// node's median, a per-model baseline and a floor, with warn and fail thresholds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "launcher/checks/check_options.h"

namespace pai::checks {

/// The precision names of GemmRun: cuBLASLt's, and the embedded WMMA kernel's.
inline constexpr const char* kBf16 = "bf16";
inline constexpr const char* kFp8 = "fp8";
inline constexpr const char* kWmma = "fp16-wmma";

/// One precision's GEMMs on one GPU. The inputs are fixed, so every digest in `hashes` (one
/// per GEMM, warm-up included) must be identical, and identical across GPUs of one model.
struct GemmRun {
  std::string precision;    ///< kBf16, kFp8 or kWmma
  bool timed = true;        ///< false: a cross-check judged for corruption only
  std::uint64_t gemms = 0;  ///< timed GEMMs
  double gpu_seconds = 0;   ///< GPU time of the timed GEMMs (CUDA events)
  double flops_per_gemm = 0;
  std::vector<std::uint64_t> hashes;

  /// Achieved throughput in TFLOPS (0 when nothing was timed).
  double tflops() const;
};

/// What one GPU did during the burn; `error` is set when it could not run it all.
struct GpuBurn {
  int gpu = 0;  ///< CUDA index
  std::string name;
  std::string pci_bus_id;
  std::string serial;  ///< from NVML, when the burn could match the GPU there
  std::string engine;  ///< "cuBLASLt" or "WMMA"
  std::vector<GemmRun> runs;
  std::string error;

  /// The run of `precision`, or null.
  const GemmRun* run(const std::string& precision) const;
};

/// The thresholds a burn is judged by.
struct BurnLimits {
  double warn_fraction = 0.035;  ///< this far below the median or the baseline: a warning
  double fail_fraction = 0.07;   ///< this far below: the GPU fails
  double min_tflops = 0;         ///< floor of the headline precision; 0 = none
  std::vector<BurnBaseline> baselines;
};

/// The verdict on a node's burn.
struct BurnVerdict {
  std::vector<std::string> failures;  ///< each names its GPU
  std::vector<std::string> warnings;  ///< each names its GPU
  std::string headline;               ///< the precision of `figure`: bf16, or fp16-wmma
  std::string figure;                 ///< "<median> TFLOPS" of the headline precision
  std::string summary;                ///< what passed: GPUs, engine, medians, bit-identical
  std::string detail;                 ///< one line per GPU and precision
  std::map<std::string, double> median_tflops;  ///< per precision

  bool passed() const { return failures.empty(); }
};

/// The median of `values` (the mean of the two middle ones for an even count); 0 when empty.
double median(std::vector<double> values);

/// Judges `gpus`. Fails: any GPU error; a GPU whose digests differ between iterations; a GPU
/// the corruption vote outvotes, or every GPU of a vote without majority; per timed precision,
/// a GPU at least `fail_fraction` below the node's median (with two GPUs or more) or below its
/// model's baseline for that precision; the headline precision below `min_tflops`. Warns at
/// `warn_fraction` below the median or the baseline.
BurnVerdict analyse_burn(const std::vector<GpuBurn>& gpus, const BurnLimits& limits);

}  // namespace pai::checks
