#include "launcher/checks/gpu_check.h"

#include <catch2/catch.hpp>

#include "fake_env.h"
#include "test_plan.h"

namespace gpu_check_test {

using namespace pai::checks;
using test::FakeCudaEnv;

namespace {

CheckOptions fake_options() {
  CheckOptions options;
  options.cuda_library = test::kFakeCuda;
  options.nvml_library = test::kMissingLibrary;
  return options;
}

CheckResult check(const pai::Plan& plan, const CheckOptions& options) {
  return run_gpu_check(plan, plan.placements.front(), options, 20);
}

}  // namespace

TEST_CASE("without a CUDA driver the gpu check is skipped with the reason") {
  pai::Plan plan = test::one_node_plan(8);
  CheckOptions options;
  options.cuda_library = test::kMissingLibrary;
  CheckResult r = check(plan, options);
  CHECK(r.name == "gpu");
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no CUDA driver (" + test::kMissingLibrary +
                         ": cannot open shared object file: No such file or directory)");
}

TEST_CASE("on this machine's real libcuda.so.1 the check is skipped or runs - never crashes") {
  pai::Plan plan = test::one_node_plan(0);
  CheckResult r = check(plan, CheckOptions{});
  CHECK(r.name == "gpu");
  if (r.status == CheckResult::Skipped)
    CHECK(r.summary.rfind("no CUDA driver (libcuda.so.1: ", 0) == 0);
}

TEST_CASE("a driver whose cuInit fails fails the gpu check") {
  FakeCudaEnv env("", "100");
  CheckResult r = check(test::one_node_plan(8), fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "driver library loads but cuInit failed: error 100 (CUDA_ERROR_NO_DEVICE)");
}

TEST_CASE("a plan asking for more GPUs than the node has fails") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  CheckResult r = check(test::one_node_plan(8), fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "the plan asks for 8 GPUs, the node has 2");
  CHECK(r.facts.at("gpu_count") == "2");
}

TEST_CASE("matching GPUs with ECC on pass - and their facts are reported") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA H100 80GB HBM3");
  CheckResult r = check(test::one_node_plan(2), fake_options());
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.figure == "2x NVIDIA H100 80GB HBM3");
  CHECK(r.summary == "2x NVIDIA H100 80GB HBM3, 80.0 GiB each, sm_90, ECC on, CUDA 12.4");
  CHECK(r.facts.at("gpu_model") == "NVIDIA H100 80GB HBM3");
  CHECK(r.facts.at("cuda") == "12.4");
  CHECK(r.detail.find("no NVML (" + test::kMissingLibrary) != std::string::npos);
}

TEST_CASE("ECC off and mixed models fail") {
  FakeCudaEnv env("NVIDIA H100 80GB HBM3;NVIDIA A100-SXM4-80GB!noecc");
  CheckResult r = check(test::one_node_plan(2), fake_options());
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "GPU 1: ECC is disabled (and 1 more)");
  CHECK(r.detail.find("mixed GPU models: NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3\n") !=
        std::string::npos);
}

TEST_CASE("a node without GPUs whose role asks for none skips the check") {
  FakeCudaEnv env("");
  CheckResult r = check(test::one_node_plan(0), fake_options());
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no GPU on this node, and the plan asks for none");
}

TEST_CASE("the expected GPU count is the placement's role's resources.gpu") {
  pai::Plan plan = test::one_node_plan(4);
  CHECK(expected_gpus(plan, plan.placements.front()) == 4);
}

}  // namespace gpu_check_test
