#include "launcher/checks/custom_check.h"

#include <catch2/catch.hpp>

namespace custom_check_test {

using namespace pai::checks;

namespace {

pai::CustomCheck check(const std::string& command, std::int64_t timeout = 10) {
  return {"probe", command, timeout};
}

}  // namespace

TEST_CASE("a custom check that exits 0 passes") {
  CheckResult r = run_custom_check(check("echo links ok"));
  CHECK(r.name == "custom:probe");
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary == "exited with status 0");
  CHECK(r.detail == "links ok\n");
}

TEST_CASE("a custom check that exits non-zero fails with its output tail") {
  CheckResult r = run_custom_check(check("echo mlx5_1 is down >&2; exit 3"));
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "exited with status 3");
  CHECK(r.detail == "mlx5_1 is down\n");
}

TEST_CASE("a custom check that hangs is killed at its timeout") {
  CheckResult r = run_custom_check(check("echo waiting; sleep 60", 1));
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "timed out after 1s (process group killed)");
  CHECK(r.detail == "waiting\n");
  CHECK(r.seconds < 10);
}

TEST_CASE("a custom check that floods 100 MB keeps only its last 64 KiB") {
  CheckResult r = run_custom_check(
      check("head -c 100000000 /dev/zero | tr '\\0' y; echo; echo last line; exit 1", 120));
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary == "exited with status 1");
  std::string omitted =
      "[... " + std::to_string(100000000 + 1 + 10 - kCustomOutputCap) + " bytes omitted ...]\n";
  REQUIRE(r.detail.size() == omitted.size() + kCustomOutputCap);
  CHECK(r.detail.substr(0, omitted.size()) == omitted);
  CHECK(r.detail.substr(r.detail.size() - 11) == "\nlast line\n");
}

}  // namespace custom_check_test
