#include "compiler/spec/port_range.h"

#include <cstdint>

namespace pai {

int default_port_range_min(std::string_view name) {
  // FNV-1a, 64 bits: stable across compilers and standard libraries, unlike std::hash.
  std::uint64_t hash = 14695981039346656037ull;
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  constexpr int kStarts =
      (kDefaultPortRangeMax + 1 - kDefaultPortRangeMinSize - kDefaultPortRangeLow) /
          kDefaultPortRangeStep +
      1;
  return kDefaultPortRangeLow +
         static_cast<int>(hash % static_cast<std::uint64_t>(kStarts)) * kDefaultPortRangeStep;
}

}  // namespace pai
