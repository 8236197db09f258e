#include "launcher/coordinator/node_checks.h"

#include <catch2/catch.hpp>

#include "launcher/net/frame.h"
#include "support/plan_fixture.h"

namespace node_checks_test {

using namespace pai::launcher::coordinator;
using pai::checks::CheckResult;
using pai::checks::make_result;

TEST_CASE("a node is ready when every check passed or was skipped") {
  Node n;
  apply_checks(n, {make_result("gpu", CheckResult::Passed, "ok"),
                   make_result("nccl", CheckResult::Skipped, "no CUDA driver")});
  CHECK(n.health == Health::Ready);
  CHECK(n.failed_checks.empty());
}

TEST_CASE("a node failing checks names them and keeps the first summary") {
  Node n;
  n.name = "gpu-3";
  n.check_attempt = 1;
  apply_checks(n, {make_result("burn", CheckResult::Failed, "GPU 2 mismatched"),
                   make_result("disk", CheckResult::Failed, "full")});
  CHECK(n.health == Health::Failed);
  CHECK(n.failed_checks == "burn, disk");
  CHECK(check_failure_line(n, 3) ==
        "gpu-3 failed checks burn, disk: GPU 2 mismatched (attempt 1 of 3)");
}

TEST_CASE("check results that do not parse are a protocol error") {
  CHECK_THROWS_AS(parse_checks("join", Json::array({Json{{"name", "gpu"}}}).dump()),
                  pai::net::ProtocolError);
  CHECK_THROWS_WITH(parse_checks("join", "[1]"), Catch::Matchers::StartsWith("join: checks: "));
}

TEST_CASE("run-checks starts a new round or counts the next attempt") {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{},
                         Clock::time_point{});
  std::vector<Action> out;
  state.out = &out;
  state.nodes[1].session = 7;
  state.nodes[1].check_attempt = 2;
  state.nodes[1].failed_checks = "burn";
  request_checks(state, 1, false);
  CHECK(state.nodes[1].check_attempt == 3);
  CHECK(state.nodes[1].health == Health::Checking);
  request_checks(state, 1, true);
  CHECK(state.nodes[1].check_attempt == 1);
  CHECK(state.nodes[1].failed_checks.empty());
  REQUIRE(out.size() == 2);
  CHECK(std::get<Send>(out[0]).message == Json{{"type", "run-checks"}, {"attempt", 3}});
  CHECK(std::get<Send>(out[1]).session == 7);
}

}  // namespace node_checks_test
