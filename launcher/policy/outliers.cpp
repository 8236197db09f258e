#include "launcher/policy/outliers.h"

namespace pai::launcher {

double median_without(const std::vector<double>& values, std::size_t skip) {
  const std::size_t n = values.size() - (skip < values.size() ? 1 : 0);
  auto at = [&](std::size_t k) { return values[k < skip ? k : k + 1]; };
  return (at((n - 1) / 2) + at(n / 2)) / 2;
}

std::vector<std::size_t> high_outliers(const std::vector<double>& values, double factor,
                                       double min_excess, std::size_t most) {
  std::vector<std::size_t> out;
  if (values.size() < 2) return out;
  for (std::size_t i = values.size(); i-- > 0 && out.size() < most;) {
    const double others = median_without(values, i);
    if (values[i] < factor * others || values[i] - others < min_excess) break;
    out.push_back(i);
  }
  return out;
}

}  // namespace pai::launcher
