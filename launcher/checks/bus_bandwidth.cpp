#include "launcher/checks/bus_bandwidth.h"

#include <cstdio>

namespace pai::checks {

AllReduceBandwidth all_reduce_bandwidth(std::int64_t bytes, double seconds, int ranks) {
  AllReduceBandwidth bw;
  if (seconds <= 0 || ranks <= 0) return bw;
  bw.algbw = static_cast<double>(bytes) / 1e9 / seconds;
  bw.busbw = bw.algbw * 2.0 * (ranks - 1) / ranks;
  return bw;
}

float all_reduce_expected(int ranks) {
  return static_cast<float>(static_cast<double>(ranks) * (ranks + 1) / 2);
}

std::string bus_bandwidth_problem(double busbw, double min_busbw) {
  if (min_busbw <= 0 || busbw >= min_busbw) return "";
  char text[128];
  std::snprintf(text, sizeof text, "bus bandwidth %.1f GB/s is below the floor of %.1f GB/s", busbw,
                min_busbw);
  return text;
}

}  // namespace pai::checks
