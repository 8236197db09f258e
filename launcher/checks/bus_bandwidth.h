// All-reduce bandwidth as nccl-tests reports it, and the nccl check's verdict on it.
#pragma once

#include <cstdint>
#include <string>

namespace pai::checks {

/// Bandwidths in GB/s (10^9 bytes per second).
struct AllReduceBandwidth {
  double algbw = 0;  ///< bytes / time
  double busbw = 0;  ///< algbw × 2(n−1)/n: what each link carried, comparable across n
};

/// The bandwidth of an all-reduce of `bytes` per rank over `ranks` ranks that took `seconds`.
/// A single rank moves nothing over links: busbw 0.
AllReduceBandwidth all_reduce_bandwidth(std::int64_t bytes, double seconds, int ranks);

/// The value each element holds after a sum all-reduce where rank r contributed r + 1:
/// n(n+1)/2, exact in float32 for any realistic n.
float all_reduce_expected(int ranks);

/// "" when `busbw` meets `min_busbw` (0 = no floor), else why not, e.g.
/// "bus bandwidth 12.3 GB/s is below the floor of 40.0 GB/s".
std::string bus_bandwidth_problem(double busbw, double min_busbw);

}  // namespace pai::checks
