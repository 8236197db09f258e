// Judging a GEMM burn from what each GPU reported: bit-exact results across iterations and
// across GPUs (silent data corruption), throughput against the node's median and a floor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pai::checks {

/// A GPU is slow when its throughput is below this fraction of the node's median.
inline constexpr double kSlowFraction = 0.9;

/// What one GPU did during the burn. `hashes` holds one digest of the output matrix per GEMM;
/// the inputs are fixed, so every digest of every GPU must be identical. `error` is set when
/// the GPU could not run the burn at all.
struct GpuBurn {
  int gpu = 0;
  std::string name;
  std::uint64_t gemms = 0;
  double seconds = 0;
  double flops_per_gemm = 0;
  std::vector<std::uint64_t> hashes;
  std::string error;

  /// Achieved throughput in TFLOPS (0 when nothing ran).
  double tflops() const;
};

/// The verdict on a node's burn.
struct BurnVerdict {
  bool passed = false;
  std::string summary;  ///< the first problem (and how many more), or the passed summary
  std::string figure;   ///< "<median> TFLOPS" per GPU
  std::string detail;   ///< one line per GPU, then every problem
  double median_tflops = 0;
};

/// The median of `values` (the mean of the two middle ones for an even count); 0 when empty.
double median(std::vector<double> values);

/// Judges `gpus`: fails on any error, on a GPU whose digests differ between iterations or from
/// the digest most GPUs agree on (ties: the lowest-numbered GPU's), on throughput below
/// kSlowFraction × the median, and below `min_tflops` when it is positive.
BurnVerdict analyse_burn(const std::vector<GpuBurn>& gpus, double min_tflops);

}  // namespace pai::checks
