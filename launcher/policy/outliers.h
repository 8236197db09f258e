// Medians and high outliers of small sets of figures, as the diagnosis compares them: a value
// stands out when it is at least a factor times the median of the others and a margin more.
#pragma once

#include <cstddef>
#include <vector>

namespace pai::launcher {

/// The median of sorted `values` without the one at index `skip` (none when skip == size).
/// At least one value must remain.
double median_without(const std::vector<double>& values, std::size_t skip);

/// The indexes of the values of sorted `values` that stand out above the rest, highest first:
/// each at least `factor` times the median of the others and `min_excess` more, at most
/// `most` of them. From the highest down: removing a lower value only raises the others'
/// median, so the first value that does not stand out ends the search. Needs two values.
std::vector<std::size_t> high_outliers(const std::vector<double>& values, double factor,
                                       double min_excess, std::size_t most);

}  // namespace pai::launcher
