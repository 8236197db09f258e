#include "libpai/checkpoint_interval.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

namespace checkpoint_interval_test {

TEST_CASE(
    "daly_interval: Daly's higher-order estimate - M past half the cost - 0 for a free save") {
  // sqrt(2 x 60 x 3600) (1 + sqrt(1/120)/3 + 1/1080) - 60.
  CHECK(pai::daly_interval(3600, 60) == Approx(617.8756).epsilon(1e-6));
  // Young's first-order sqrt(2 delta M) when the cost is small against M.
  CHECK(pai::daly_interval(1e9, 1) == Approx(std::sqrt(2e9)).epsilon(1e-4));
  CHECK(pai::daly_interval(100, 200) == 100);
  CHECK(pai::daly_interval(100, 300) == 100);
  CHECK(pai::daly_interval(3600, 0) == 0);
}

TEST_CASE("expected_ettr: Daly's expected wall time - bounded without NaN or infinity") {
  CHECK(pai::expected_ettr(4342, 60, 600, 159975) == Approx(0.969219).epsilon(1e-5));
  // No failures to speak of: only the saves cost, interval / (interval + cost).
  CHECK(pai::expected_ettr(3600, 60, 600, 1e15) == Approx(3600.0 / 3660).epsilon(1e-6));
  // A free save taken every second: only the restarts cost, e^(-R/M).
  CHECK(pai::expected_ettr(1, 0, 600, 3600) == Approx(std::exp(-600.0 / 3600)).epsilon(1e-3));
  // Failures every 100 s against 300 s saves and 10 minute restarts: next to nothing.
  CHECK(pai::expected_ettr(100, 300, 600, 100) == Approx(4.6247e-5).epsilon(1e-3));
  // A job MTBF of a millisecond: e^(R/M) is far past double's range.
  const double none = pai::expected_ettr(1, 31536000, 31536000, 0.001);
  CHECK(none == 0);
  CHECK(pai::expected_ettr(0, 60, 600, 3600) == 0);
  CHECK(pai::expected_ettr(60, 60, 600, 0) == 0);
  const double huge = std::numeric_limits<double>::max();
  CHECK(std::isfinite(pai::expected_ettr(huge, huge, huge, huge)));
}

TEST_CASE("planned_interval_seconds: whole seconds from 1 s to 365 days") {
  CHECK(pai::planned_interval_seconds(3600, 60) == 618);
  CHECK(pai::planned_interval_seconds(3600, 0) == 1);
  CHECK(pai::planned_interval_seconds(1e300, 1e300) == 365 * 86400);
  CHECK(pai::planned_interval_seconds(std::nan(""), 60) == 1);
  // A save dearer than twice the MTBF: the MTBF itself.
  CHECK(pai::planned_interval_seconds(3600, std::numeric_limits<double>::infinity()) == 3600);
}

}  // namespace checkpoint_interval_test
