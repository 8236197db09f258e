#include "launcher/policy/fabric_lint.h"

#include <catch2/catch.hpp>

namespace fabric_lint_test {

using namespace pai::launcher;

namespace {

NodeFacts healthy() {
  return {{"kernel", "6.1.0"},
          {"ncclLibrary", "libnccl.so.2.28.9"},
          {"port.mlx5_0/1.state", "ACTIVE"},
          {"port.mlx5_0/1.linkLayer", "Ethernet"},
          {"port.mlx5_0/1.mtu", "4200"},
          {"port.mlx5_0/1.gidType", "RoCE v2"},
          {"port.mlx5_0/1.tcPriority", "3"},
          {"port.mlx5_0/1.tcLossless", "yes"},
          {"gpu0.nic", "mlx5_0 PIX"}};
}

const LintPlan kRoce{.fabric = "roce", .gid_index = 3, .traffic_class = 106};

std::vector<std::pair<std::string, NodeFacts>> four_nodes() {
  std::vector<std::pair<std::string, NodeFacts>> nodes;
  for (int i = 1; i <= 4; ++i) nodes.emplace_back("node-" + std::to_string(i), healthy());
  return nodes;
}

}  // namespace

TEST_CASE("identical healthy nodes give no finding") {
  const LintReport r = lint_fabric(four_nodes(), kRoce);
  CHECK(r.outliers.empty());
  CHECK(r.contradictions.empty());
  CHECK(r.excludable.empty());
}

TEST_CASE("an MTU, an NCCL and a GPU path that differ from the majority are named") {
  auto nodes = four_nodes();
  nodes[1].second["port.mlx5_0/1.mtu"] = "1500";
  nodes[2].second["ncclLibrary"] = "libnccl.so.2.21.5";
  nodes[3].second["gpu0.nic"] = "mlx5_0 SYS";
  const LintReport r = lint_fabric(nodes, kRoce);
  REQUIRE(r.outliers.size() == 3);
  CHECK(r.outliers[0] == LintFinding{"node-2", "port.mlx5_0/1.mtu", "1500", "4200", ""});
  CHECK(r.outliers[1] ==
        LintFinding{"node-3", "ncclLibrary", "libnccl.so.2.21.5", "libnccl.so.2.28.9", ""});
  CHECK(r.outliers[2] == LintFinding{"node-4", "gpu0.nic", "mlx5_0 SYS", "mlx5_0 PIX", ""});
  CHECK(r.contradictions.empty());
  CHECK(r.excludable == std::vector<std::string>{"node-2", "node-3", "node-4"});
}

TEST_CASE("a fact a node lacks is an outlier too") {
  auto nodes = four_nodes();
  nodes[0].second.erase("port.mlx5_0/1.mtu");
  const LintReport r = lint_fabric(nodes, kRoce);
  REQUIRE(r.outliers.size() == 1);
  CHECK(r.outliers[0] == LintFinding{"node-1", "port.mlx5_0/1.mtu", "(missing)", "4200", ""});
}

TEST_CASE("without a strict majority of at least 3 nodes nobody is an outlier") {
  auto two = four_nodes();
  two.resize(2);
  two[1].second["kernel"] = "6.5.0";
  CHECK(lint_fabric(two, kRoce).outliers.empty());
  auto split = four_nodes();
  split[0].second["kernel"] = "6.5.0";
  split[1].second["kernel"] = "6.5.0";
  CHECK(lint_fabric(split, kRoce).outliers.empty());
}

TEST_CASE("settings that contradict the plan - excluding only where the majority is right") {
  auto nodes = four_nodes();
  nodes[2].second["port.mlx5_0/1.gidType"] = "IB/RoCE v1";
  for (auto& [name, facts] : nodes) facts["port.mlx5_0/1.tcLossless"] = "no";  // everywhere
  const LintReport r = lint_fabric(nodes, kRoce);
  REQUIRE(r.contradictions.size() == 5);
  CHECK(r.contradictions[0].why ==
        "the plan's traffic class 106 (DSCP 26) lands on a priority PFC does not make lossless");
  CHECK(r.contradictions[2] ==
        LintFinding{"node-3", "port.mlx5_0/1.gidType", "IB/RoCE v1", "",
                    "the plan's GID index 3 is IB/RoCE v1 here, not RoCE v2 (NCCL_IB_GID_INDEX)"});
  // PFC is wrong on every node: a warning; only node-3's own GID type excludes it.
  CHECK(r.excludable == std::vector<std::string>{"node-3"});
}

TEST_CASE("a port down, on the wrong link layer, or a DSCP left unmapped contradicts the plan") {
  NodeFacts f = healthy();
  f["port.mlx5_0/1.state"] = "DOWN";
  f["port.mlx5_0/1.linkLayer"] = "InfiniBand";
  f["port.mlx5_0/1.tcPriority"] = "unmapped";
  const LintReport r = lint_fabric({{"node-1", f}}, kRoce);
  REQUIRE(r.contradictions.size() == 3);
  CHECK(r.contradictions[0].why == "the plan's fabric is RoCE");
  CHECK(r.contradictions[1].why == "a port the job uses is DOWN, not ACTIVE");
  CHECK(r.contradictions[2].why ==
        "the plan's traffic class 106 (DSCP 26) is mapped to no priority by the port's DSCP "
        "trust table");
  const LintReport ib = lint_fabric({{"node-1", healthy()}}, LintPlan{.fabric = "ib"});
  REQUIRE(ib.contradictions.size() == 1);
  CHECK(ib.contradictions[0].why == "the plan's fabric is InfiniBand");
}

TEST_CASE("drift names what changed on each node since the last good attempt") {
  const auto before = four_nodes();
  auto after = four_nodes();
  after[1].second["port.mlx5_0/1.mtu"] = "1500";
  after[3].second.erase("gpu0.nic");
  after[3].second["kernel"] = "6.5.0";
  after.emplace_back("spare-1", healthy());  // new in the job: nothing to compare
  const auto changes = fact_drift(before, after);
  REQUIRE(changes.size() == 3);
  CHECK(changes[0] == FactChange{"node-2", "port.mlx5_0/1.mtu", "4200", "1500"});
  CHECK(changes[1] == FactChange{"node-4", "gpu0.nic", "mlx5_0 PIX", "(missing)"});
  CHECK(changes[2] == FactChange{"node-4", "kernel", "6.1.0", "6.5.0"});
  CHECK(fact_drift(before, before).empty());
}

}  // namespace fabric_lint_test
