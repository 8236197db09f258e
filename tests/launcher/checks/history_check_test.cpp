#include "launcher/checks/history_check.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "launcher/checks/sanity_checks.h"
#include "support/temp_dir.h"
#include "test_plan.h"

namespace history_check_test {

using namespace pai::checks;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

std::vector<CheckResult> failed_burn() {
  return {make_result("gpu", CheckResult::Passed, "8x H100"),
          make_result("burn", CheckResult::Failed, "GPU 2: bf16 12% below the node median")};
}

std::vector<CheckResult> passed() { return {make_result("gpu", CheckResult::Passed, "8x H100")}; }

pai::Plan plan_with_history(const std::string& dir, int window = 5, int max_failures = 2) {
  pai::Plan plan = test::one_node_plan(8);
  plan.sanity_check.history = pai::CheckHistory{dir, window, max_failures};
  return plan;
}

}  // namespace

TEST_CASE("without a history folder nothing is recorded and no result is added") {
  std::vector<CheckResult> results = failed_burn();
  keep_history(test::one_node_plan(8), "gpu-001", &results);
  CHECK(results.size() == 2);
}

TEST_CASE("each run is recorded - and the second failure of the window quarantines the node") {
  TempDir dir;
  const pai::Plan plan = plan_with_history(dir.path());
  std::vector<CheckResult> first = failed_burn();
  keep_history(plan, "gpu-001", &first);
  REQUIRE(first.size() == 3);
  CHECK(first[2].name == "history");
  CHECK(first[2].status == CheckResult::Passed);
  CHECK(first[2].summary == "failed 1 of its last 1 checks");

  std::vector<CheckResult> good = passed();
  keep_history(plan, "gpu-001", &good);
  CHECK(good.back().status == CheckResult::Passed);

  // A passing run does not help: 2 failures among the last 5 quarantine the node, and its
  // checks fail from then on, passing or not.
  std::vector<CheckResult> second = failed_burn();
  keep_history(plan, "gpu-001", &second);
  CHECK(second.back().status == CheckResult::Failed);
  CHECK(second.back().summary.rfind("quarantined: failed 2 of its last 3 checks", 0) == 0);
  std::vector<CheckResult> after = passed();
  keep_history(plan, "gpu-001", &after);
  CHECK(after.back().status == CheckResult::Failed);
  CHECK(pai::checks::all_passed(after) == false);
  // Four records, one line each, in the node's own file.
  const std::string text = slurp(dir.path() + "/gpu-001.jsonl");
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);
  // Another node's history is its own.
  std::vector<CheckResult> other = passed();
  keep_history(plan, "gpu-002", &other);
  CHECK(other.back().status == CheckResult::Passed);
}

TEST_CASE("the plan's window and threshold decide") {
  TempDir dir;
  const pai::Plan plan = plan_with_history(dir.path(), 2, 1);
  std::vector<CheckResult> first = failed_burn();
  keep_history(plan, "gpu-001", &first);
  CHECK(first.back().status == CheckResult::Failed);
  // Two passing runs push the failure out of a window of 2.
  for (int i = 0; i < 2; ++i) {
    std::vector<CheckResult> good = passed();
    keep_history(plan, "gpu-001", &good);
    CHECK(good.back().status == (i == 0 ? CheckResult::Failed : CheckResult::Passed));
  }
}

TEST_CASE("a history that cannot be written is a warning, not a failed check") {
  TempDir dir;
  // The folder is a file: nothing can be appended under it.
  const std::string blocked = dir.path() + "/blocked";
  spit(blocked, "not a folder\n");
  std::vector<CheckResult> results = passed();
  keep_history(plan_with_history(blocked), "gpu-001", &results);
  REQUIRE(results.size() == 2);
  CHECK(results[1].status == CheckResult::Passed);
  CHECK(results[1].detail.find("warning: history not recorded: ") != std::string::npos);
}

}  // namespace history_check_test
