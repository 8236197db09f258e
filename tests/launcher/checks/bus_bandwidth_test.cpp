#include "launcher/checks/bus_bandwidth.h"

#include <catch2/catch.hpp>

namespace bus_bandwidth_test {

using namespace pai::checks;

TEST_CASE("algbw is bytes over time and busbw scales it by 2(n-1)/n") {
  auto bw = all_reduce_bandwidth(1'000'000'000, 0.01, 8);
  CHECK(bw.algbw == Approx(100.0));
  CHECK(bw.busbw == Approx(175.0));
  auto two = all_reduce_bandwidth(256ll << 20, 0.002, 2);
  CHECK(two.algbw == Approx(134.217728));
  CHECK(two.busbw == Approx(two.algbw));
}

TEST_CASE("one rank or no time measures nothing") {
  CHECK(all_reduce_bandwidth(1 << 20, 0.01, 1).busbw == 0);
  CHECK(all_reduce_bandwidth(1 << 20, 0, 8).algbw == 0);
}

TEST_CASE("the expected sum of ranks contributing r + 1 is n(n+1)/2") {
  CHECK(all_reduce_expected(2) == 3.0f);
  CHECK(all_reduce_expected(8) == 36.0f);
  CHECK(all_reduce_expected(4096) == 8390656.0f);
}

TEST_CASE("the bus bandwidth floor") {
  CHECK(bus_bandwidth_problem(12.34, 40) ==
        "bus bandwidth 12.3 GB/s is below the floor of 40.0 GB/s");
  CHECK(bus_bandwidth_problem(40, 40).empty());
  CHECK(bus_bandwidth_problem(1, 0).empty());
}

}  // namespace bus_bandwidth_test
