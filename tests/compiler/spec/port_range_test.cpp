#include "compiler/spec/port_range.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace port_range_test {

using namespace pai;

TEST_CASE("a job's default port range starts by its name - the same everywhere, in range") {
  // FNV-1a of the name: fixed values, whatever the compiler or standard library.
  CHECK(default_port_range_min("") == 20000 + static_cast<int>(14695981039346656037ull % 1001) * 8);
  CHECK(default_port_range_min("llama-sft") == default_port_range_min("llama-sft"));
  std::set<int> starts;
  for (int i = 0; i < 200; ++i) {
    const int min = default_port_range_min("job-" + std::to_string(i));
    CHECK(min >= kDefaultPortRangeLow);
    CHECK(min <= kDefaultPortRangeMax + 1 - kDefaultPortRangeMinSize);
    CHECK((min - kDefaultPortRangeLow) % kDefaultPortRangeStep == 0);
    starts.insert(min);
  }
  // 1,001 possible starts: 200 names share few (about 18 collisions expected).
  CHECK(starts.size() >= 170);
}

}  // namespace port_range_test
