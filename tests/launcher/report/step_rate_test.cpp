#include "launcher/report/step_rate.h"

#include <catch2/catch.hpp>

namespace step_rate_test {

using namespace pai::launcher::report;

TEST_CASE("a series' rate is the steps it advanced over the time it took") {
  StepRate rate;
  rate.sample("worker-0", 10'000, 100);
  rate.sample("worker-0", 12'000, 120);  // 10 steps/s
  rate.sample("worker-1", 12'500, 50);
  rate.sample("worker-1", 12'900, 60);  // 25 steps/s, in the same 1 s bucket as worker-0's
  const auto b = rate.buckets();
  REQUIRE(b.size() == 2);
  CHECK(b[0].start_ms == 10'000);
  CHECK(b[0].rates == 0);  // a first sample has no rate yet
  CHECK(b[0].last_step == 100);
  CHECK(b[1].start_ms == 12'000);
  CHECK(b[1].width_ms == 1000);
  CHECK(b[1].rates == 2);
  CHECK(b[1].steps_per_second == Approx((10.0 + 25.0) / 2));
  CHECK(b[1].last_step == 120);
  CHECK(rate.samples() == 4);
}

TEST_CASE("a step that goes back (a restart from a checkpoint) starts the series afresh") {
  StepRate rate;
  rate.sample("worker-0", 1'000, 500);
  rate.sample("worker-0", 5'000, 100);
  rate.sample("worker-0", 6'000, 110);
  const auto b = rate.buckets();
  REQUIRE(b.size() == 3);
  CHECK(b[1].rates == 0);
  CHECK(b[2].steps_per_second == Approx(10.0));
}

TEST_CASE("any number of samples fit in the bucket limit, wider buckets merging neighbours") {
  StepRate rate(2000);
  // A day of one sample a second from two series.
  for (std::int64_t t = 0; t < 86'400; t += 1) {
    rate.sample("a", t * 1000, t * 2);
    rate.sample("b", t * 1000 + 500, t * 2);
  }
  const auto b = rate.buckets();
  CHECK(b.size() <= 2000);
  CHECK(b.size() > 1000);
  CHECK(b.front().width_ms == 64'000);
  for (std::size_t k = 1; k < b.size(); ++k) CHECK(b[k].start_ms == b[k - 1].start_ms + 64'000);
  CHECK(b[b.size() / 2].steps_per_second == Approx(2.0));
  CHECK(b.back().last_step == (86'400 - 1) * 2);
}

TEST_CASE("buckets do not depend on the order the series come in") {
  StepRate ab(10), ba(10);
  auto series = [](StepRate& r, const std::string& name, std::int64_t offset) {
    for (std::int64_t t = 0; t < 100; ++t) r.sample(name, offset + t * 1000, t);
  };
  series(ab, "a", 0);
  series(ab, "b", 250);
  series(ba, "b", 250);
  series(ba, "a", 0);
  const auto x = ab.buckets(), y = ba.buckets();
  REQUIRE(x.size() == y.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    CHECK(x[k].start_ms == y[k].start_ms);
    CHECK(x[k].steps_per_second == Approx(y[k].steps_per_second));
  }
}

}  // namespace step_rate_test
