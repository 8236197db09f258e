#include "launcher/coordinator/job_lint.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace job_lint_test {

using namespace pai::launcher;
using namespace pai::launcher::coordinator;
using pai::checks::CheckResult;
using pai::checks::make_result;

TEST_CASE("a node's facts: the fingerprint's as they are, other checks' prefixed") {
  Node n;
  CheckResult gpu = make_result("gpu", CheckResult::Passed, "ok");
  gpu.facts = {{"driver", "550"}};
  CheckResult fingerprint = make_result("fingerprint", CheckResult::Passed, "2 facts");
  fingerprint.facts = {{"kernel", "6.1"}, {"port.mlx5_0/1.mtu", "4200"}};
  n.checks = {gpu, fingerprint};
  CHECK(node_facts(n) ==
        NodeFacts{{"gpu.driver", "550"}, {"kernel", "6.1"}, {"port.mlx5_0/1.mtu", "4200"}});
}

TEST_CASE("the plan's fabric, GID index and traffic class are what facts can contradict") {
  const LintPlan p = lint_plan(pai::testing::make_test_plan());
  CHECK(p.fabric == "roce");
  CHECK(p.gid_index == 3);
  CHECK(p.traffic_class == 106);
}

TEST_CASE("lint lines: outliers, contradictions, then facts two sides disagree on") {
  const std::vector<std::pair<std::string, NodeFacts>> nodes = {
      {"node-0", {{"kernel", "6.1"}, {"mtu", "4200"}}},
      {"node-1", {{"kernel", "6.5"}, {"mtu", "4200"}}},
  };
  LintReport report;
  report.outliers = {{"node-2", "mtu", "1500", "4200", ""}};
  report.contradictions = {{"node-0", "port.x.tcLossless", "no", "", "PFC is off"}};
  const auto disagree = disagreements(nodes, report);
  REQUIRE(disagree.size() == 1);
  CHECK(disagree.at("kernel").at("6.5") == std::vector<std::string>{"node-1"});
  const auto lines = lint_lines(report, disagree);
  CHECK(lines == std::vector<std::string>{
                     "fabric lint: node-2 mtu is 1500, the other nodes' 4200",
                     "fabric lint: node-0 port.x.tcLossless is no: PFC is off",
                     "fabric lint: kernel differs across nodes: 6.1 on node-0; 6.5 on node-1"});
  CHECK(lint_lines(report, disagree, 1) ==
        std::vector<std::string>{"fabric lint: node-2 mtu is 1500, the other nodes' 4200",
                                 "and 2 more"});
}

TEST_CASE("a node's first finding is its first outlier - else its first contradiction") {
  LintReport report;
  report.outliers = {{"node-2", "mtu", "1500", "4200", ""}};
  report.contradictions = {{"node-2", "gidType", "IB/RoCE v1", "", "not RoCE v2"},
                           {"node-3", "gidType", "IB/RoCE v1", "", "not RoCE v2"}};
  CHECK(first_finding(report, "node-2") == "mtu is 1500, the other nodes' 4200");
  CHECK(first_finding(report, "node-3") == "gidType is IB/RoCE v1: not RoCE v2");
  CHECK(first_finding(report, "node-1").empty());
}

TEST_CASE("drift lines name each change and cut a long list") {
  const std::vector<FactChange> changes = {{"node-1", "mtu", "4200", "1500"},
                                           {"node-2", "kernel", "6.1", "(missing)"}};
  CHECK(drift_lines(changes) ==
        std::vector<std::string>{"node-1: mtu 4200 -> 1500", "node-2: kernel 6.1 -> (missing)"});
  CHECK(drift_lines(changes, 1) ==
        std::vector<std::string>{"node-1: mtu 4200 -> 1500", "and 1 more"});
}

}  // namespace job_lint_test
