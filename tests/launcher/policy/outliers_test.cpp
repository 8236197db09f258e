// Medians without one value, and the high outliers of a sorted set.
#include "launcher/policy/outliers.h"

#include <catch2/catch.hpp>

namespace outliers_test {

using pai::launcher::high_outliers;
using pai::launcher::median_without;
using Indexes = std::vector<std::size_t>;

TEST_CASE("the median leaves out the value at skip, or none") {
  const std::vector<double> values = {1, 2, 3, 10};
  CHECK(median_without(values, values.size()) == 2.5);
  CHECK(median_without(values, 3) == 2);
  CHECK(median_without(values, 0) == 3);
  CHECK(median_without({7}, 1) == 7);
}

TEST_CASE("high outliers are found from the top down and stop at the first that fits in") {
  CHECK(high_outliers({1, 1, 1, 10}, 3, 1, 4) == Indexes{3});
  CHECK(high_outliers({1, 1, 1, 9, 10}, 3, 1, 4) == Indexes{4, 3});
  CHECK(high_outliers({1, 1, 1, 9, 10}, 3, 1, 1) == Indexes{4});
  CHECK(high_outliers({1, 2, 3, 4}, 3, 1, 4).empty());
  CHECK(high_outliers({1, 1, 1, 10}, 3, 20, 4).empty());  // not by the margin
  CHECK(high_outliers({10}, 3, 1, 4).empty());
  CHECK(high_outliers({}, 3, 1, 4).empty());
}

}  // namespace outliers_test
