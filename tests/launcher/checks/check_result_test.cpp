#include "launcher/checks/check_result.h"

#include <catch2/catch.hpp>

namespace check_result_test {

using namespace pai::checks;

TEST_CASE("statuses are spelled as the table and JSON show them") {
  CHECK(std::string(to_string(CheckResult::Passed)) == "passed");
  CHECK(std::string(to_string(CheckResult::Failed)) == "failed");
  CHECK(std::string(to_string(CheckResult::Skipped)) == "skipped");
}

TEST_CASE("make_result fills name - status and summary only") {
  CheckResult r = make_result("disk", CheckResult::Failed, "too full");
  CHECK(r.name == "disk");
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "too full");
  CHECK(r.figure.empty());
  CHECK(r.detail.empty());
  CHECK(r.facts.empty());
  CHECK(r.seconds == 0);
}

}  // namespace check_result_test
