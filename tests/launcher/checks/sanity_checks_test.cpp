#include "launcher/checks/sanity_checks.h"

#include <catch2/catch.hpp>
#include <stdexcept>

#include "launcher/checks/burn_kernel_image.h"
#include "test_plan.h"

namespace sanity_checks_test {

using namespace pai::checks;

namespace {

std::vector<std::string> names(const std::vector<CheckResult>& results) {
  std::vector<std::string> out;
  for (const auto& r : results) out.push_back(r.name);
  return out;
}

CheckOptions no_gpu_options() {
  CheckOptions options;
  options.cuda_library = test::kMissingLibrary;
  return options;
}

}  // namespace

TEST_CASE("the plan's checks run in the plan's order - followed by its custom checks and the fingerprint") {
  pai::Plan plan = test::one_node_plan(8);
  plan.sanity_check.checks = {"disk", "gpu"};
  plan.sanity_check.custom = {{"first", "true", 10}, {"second", "exit 4", 10}};
  auto results = run_sanity_checks(plan, plan.placements.front(), no_gpu_options());
  CHECK(names(results) == std::vector<std::string>{"disk", "gpu", "custom:first", "custom:second",
                                                  "fingerprint"});
  CHECK(results[1].status == CheckResult::Skipped);
  CHECK(results[3].status == CheckResult::Failed);
  CHECK_FALSE(all_passed(results));
}

TEST_CASE("only runs the named checks - each once") {
  pai::Plan plan = test::one_node_plan(8);
  plan.sanity_check.custom = {{"first", "true", 10}};
  CheckOptions options = no_gpu_options();
  options.only = {"burn", "gpu", "nccl", "burn"};
  auto results = run_sanity_checks(plan, plan.placements.front(), options);
  CHECK(names(results) == std::vector<std::string>{"burn", "gpu", "nccl"});
  CHECK(all_passed(results));
}

TEST_CASE("every GPU check is skipped without a driver - and skipped counts as passed") {
  pai::Plan plan = test::one_node_plan(8);
  CheckOptions options = no_gpu_options();
  options.only = {"gpu", "burn", "nccl"};
  for (const auto& r : run_sanity_checks(plan, plan.placements.front(), options)) {
    CHECK(r.status == CheckResult::Skipped);
    if (r.name == "burn" && pai::checks::kBurnKernelImageSize == 0) {
      CHECK(r.summary == "built without GPU kernels");  // configured without nvcc
    } else {
      CHECK(r.summary.rfind("no CUDA driver (", 0) == 0);
    }
  }
}

TEST_CASE("an unknown check name is refused") {
  pai::Plan plan = test::one_node_plan();
  CheckOptions options;
  options.only = {"gpu", "bogus"};
  CHECK_THROWS_WITH(run_sanity_checks(plan, plan.placements.front(), options),
                    "unknown check \"bogus\"");
}

TEST_CASE("all_passed is false only when something failed") {
  CHECK(all_passed({}));
  CHECK(all_passed(
      {make_result("a", CheckResult::Passed, ""), make_result("b", CheckResult::Skipped, "")}));
  CHECK_FALSE(all_passed(
      {make_result("a", CheckResult::Passed, ""), make_result("b", CheckResult::Failed, "")}));
}

}  // namespace sanity_checks_test
