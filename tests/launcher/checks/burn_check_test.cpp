#include "launcher/checks/burn_check.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "fake_env.h"
#include "launcher/checks/burn_kernel_image.h"
#include "test_plan.h"

namespace burn_check_test {

using namespace pai::checks;
using test::FakeCudaEnv;

TEST_CASE("the burn kernels are embedded as a CUDA fatbin - or the burn says they are not") {
  if (kBurnKernelImageSize == 0) {
    CheckResult r = run_burn_check(test::one_node_plan(8), CheckOptions{}, 20);
    CHECK(r.status == CheckResult::Skipped);
    CHECK(r.summary == "built without GPU kernels");
    return;
  }
  REQUIRE(kBurnKernelImageSize > 16);
  std::uint32_t magic = 0;
  std::memcpy(&magic, kBurnKernelImage, sizeof magic);
  CHECK(magic == 0xBA55ED50u);  // fatbin header magic
  std::string image(reinterpret_cast<const char*>(kBurnKernelImage), kBurnKernelImageSize);
  CHECK(image.find("pai_burn_gemm") != std::string::npos);
  CHECK(image.find("sm_90") != std::string::npos);
}

TEST_CASE("without a CUDA driver the burn is skipped with the reason") {
  pai::Plan plan = test::one_node_plan(8);
  CheckOptions options;
  options.cuda_library = test::kMissingLibrary;
  CheckResult r = run_burn_check(plan, options, 20);
  CHECK(r.name == "burn");
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == (kBurnKernelImageSize == 0
                          ? "built without GPU kernels"
                          : "no CUDA driver (" + test::kMissingLibrary +
                                ": cannot open shared object file: No such file or directory)"));
}

TEST_CASE("GPUs that cannot load the kernels fail the burn") {
  if (kBurnKernelImageSize == 0) return;  // nothing to load; covered by the first test
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  pai::Plan plan = test::one_node_plan(2);
  plan.sanity_check.burn_seconds = 1;
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  CheckResult r = run_burn_check(plan, options, 20);
  CHECK(r.status == CheckResult::Failed);
  CHECK(
      r.summary ==
      "GPU 0: cannot load the burn kernels (built for sm_80, sm_90 and compute_90 PTX): error 209 "
      "(CUDA_ERROR_NO_BINARY_FOR_GPU) (and 1 more)");
}

TEST_CASE("a node without GPUs skips the burn") {
  if (kBurnKernelImageSize == 0) return;
  FakeCudaEnv env("");
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  CheckResult r = run_burn_check(test::one_node_plan(0), options, 20);
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no GPU on this node");
}

}  // namespace burn_check_test
