#include "launcher/checks/cuda_driver.h"

#include <catch2/catch.hpp>

#include "fake_env.h"
#include "test_plan.h"

namespace cuda_driver_test {

using namespace pai::checks;

using test::FakeCudaEnv;

TEST_CASE("without libcuda the driver is reported missing - as a skip") {
  CheckResult::Status status = CheckResult::Passed;
  std::string reason;
  auto driver = CudaDriver::open(test::kMissingLibrary, &status, &reason);
  CHECK_FALSE(driver);
  CHECK(status == CheckResult::Skipped);
  CHECK(reason == "no CUDA driver (" + test::kMissingLibrary +
                      ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("a driver whose cuInit fails is a failure naming the error") {
  FakeCudaEnv env("", "100");
  CheckResult::Status status = CheckResult::Passed;
  std::string reason;
  CHECK_FALSE(CudaDriver::open(test::kFakeCuda, &status, &reason));
  CHECK(status == CheckResult::Failed);
  CHECK(reason == "driver library loads but cuInit failed: error 100 (CUDA_ERROR_NO_DEVICE)");
}

TEST_CASE("a driver older than the checks need is a failure") {
  FakeCudaEnv env("", "0", "10020");
  CheckResult::Status status = CheckResult::Passed;
  std::string reason;
  CHECK_FALSE(CudaDriver::open(test::kFakeCuda, &status, &reason));
  CHECK(status == CheckResult::Failed);
  CHECK(reason == "CUDA driver 10.2 is too old (need 11.4 or newer)");
}

TEST_CASE("a working driver resolves its entry points and names errors") {
  FakeCudaEnv env("GPU A");
  CheckResult::Status status = CheckResult::Passed;
  std::string reason;
  auto driver = CudaDriver::open(test::kFakeCuda, &status, &reason);
  REQUIRE(driver);
  CHECK(driver->version() == 12040);
  CHECK(driver->api().cuStreamQuery != nullptr);
  int count = 0;
  CHECK(driver->api().cuDeviceGetCount(&count) == cuda::kSuccess);
  CHECK(count == 1);
  CHECK(driver->describe(209) == "error 209 (CUDA_ERROR_NO_BINARY_FOR_GPU)");
}

TEST_CASE("driver versions are written major.minor") {
  CHECK(cuda_version_text(12040) == "12.4");
  CHECK(cuda_version_text(11080) == "11.8");
  CHECK(cuda_version_text(13000) == "13.0");
}

}  // namespace cuda_driver_test
