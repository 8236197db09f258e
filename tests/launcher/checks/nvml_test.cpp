#include "launcher/checks/nvml.h"

#include <catch2/catch.hpp>

#include "test_plan.h"

namespace nvml_test {

using namespace pai::checks;

TEST_CASE("without libnvidia-ml NVML is reported missing") {
  std::string reason;
  CHECK_FALSE(Nvml::open(test::kMissingLibrary, &reason));
  CHECK(reason == "no NVML (" + test::kMissingLibrary +
                      ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("a library without NVML's entry points is refused") {
  std::string reason;
  CHECK_FALSE(Nvml::open(test::kFakeCuda, &reason));
  CHECK(reason == test::kFakeCuda + " lacks the NVML device entry points");
}

TEST_CASE("only the throttle reasons that point at a sick node are named") {
  CHECK(describe_throttle_reasons(0x1 | 0x4) == "");
  CHECK(describe_throttle_reasons(0x8 | 0x40) == "HW slowdown, HW thermal slowdown");
  CHECK(describe_throttle_reasons(0x20 | 0x80) == "SW thermal slowdown, HW power brake slowdown");
  CHECK((kBadThrottleReasons & 0x4) == 0);  // the power cap is a setting, not a fault
}

}  // namespace nvml_test
