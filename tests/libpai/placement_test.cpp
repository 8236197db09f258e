#include "libpai/placement.h"

#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>

#include "support/plan_fixture.h"

namespace placement_test {

namespace {

std::string place_error(pai::Plan plan, const std::vector<pai::Host>& hosts) {
  try {
    pai::place(plan, hosts);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("place() did not throw");
  return "";
}

pai::Role role(const std::string& name, int instances, int nproc) {
  pai::Role r;
  r.name = name;
  r.instances = instances;
  r.nproc_per_node = nproc;
  return r;
}

std::vector<pai::Host> hosts(int n) {
  std::vector<pai::Host> out;
  for (int i = 0; i < n; ++i)
    out.push_back({"h" + std::to_string(i), "10.1.0." + std::to_string(i), 8});
  return out;
}

}  // namespace

TEST_CASE("place assigns ranks role by role - instance by instance") {
  pai::Plan plan = pai::testing::make_test_plan(3, 4);
  REQUIRE(plan.placements.size() == 4);
  CHECK(plan.nodes == 4);
  CHECK(plan.world_size == 13);
  for (int i = 0; i < 3; ++i) {
    const pai::Placement& p = plan.placements[static_cast<std::size_t>(i)];
    CHECK(p.role == "worker");
    CHECK(p.role_index == 0);
    CHECK(p.index == i);
    CHECK(p.node_rank == i);
    CHECK(p.first_rank == 4 * i);
    CHECK(p.first_role_rank == 4 * i);
    CHECK(p.host.name == "node-" + std::to_string(i));
  }
  const pai::Placement& ps = plan.placements[3];
  CHECK(ps.role == "ps");
  CHECK(ps.role_index == 1);
  CHECK(ps.index == 0);
  CHECK(ps.node_rank == 3);
  CHECK(ps.first_rank == 12);
  CHECK(ps.first_role_rank == 0);
  CHECK(ps.host.address == "10.0.0.4");
}

TEST_CASE("place numbers an MPI launcher role's processes after every rank") {
  pai::Plan plan;
  plan.framework = pai::Framework::Mpi;
  plan.roles = {role("launcher", 1, 1), role("worker", 2, 2)};
  pai::place(plan, hosts(3));
  CHECK(plan.world_size == 4);
  CHECK(pai::process_count(plan) == 5);
  REQUIRE(plan.placements.size() == 3);
  CHECK(plan.placements[0].role == "launcher");
  CHECK(plan.placements[0].node_rank == 0);
  CHECK(plan.placements[0].first_rank == 4);
  CHECK(plan.placements[1].first_rank == 0);
  CHECK(plan.placements[2].first_rank == 2);
  CHECK(pai::last_rank(plan, plan.placements[0]) == 4);

  plan.framework = pai::Framework::PyTorch;  // a role named launcher elsewhere holds ranks
  pai::place(plan, hosts(3));
  CHECK(plan.world_size == 5);
  CHECK(pai::process_count(plan) == 5);
  CHECK(plan.placements[0].first_rank == 0);
  CHECK(plan.placements[1].first_rank == 1);
}

TEST_CASE("place puts coordinator and master on the first host - then labelled ports") {
  pai::Plan plan = pai::testing::make_test_plan(2, 2);
  CHECK(plan.coordinator.host == "node-0");
  CHECK(plan.coordinator.address == "10.0.0.1");
  CHECK(plan.coordinator.port == 20000);
  CHECK(plan.master.host == "node-0");
  CHECK(plan.master.address == "10.0.0.1");
  CHECK(plan.master.port == 20001);
  CHECK(plan.placements[0].ports.at("sync") == std::vector<int>{20002});
  CHECK(plan.placements[1].ports.at("sync") == std::vector<int>{20000});
  CHECK(plan.placements[2].ports.at("grpc") == std::vector<int>{20000, 20001});
}

TEST_CASE("place reserves ports in label order without collisions") {
  pai::Plan plan;
  pai::Role r = role("worker", 2, 1);
  r.ports = {{"zeta", 2}, {"alpha", 3}};
  plan.roles = {r};
  pai::place(plan, hosts(2));
  const auto& p0 = plan.placements[0].ports;
  CHECK(p0.at("alpha") == std::vector<int>{20002, 20003, 20004});
  CHECK(p0.at("zeta") == std::vector<int>{20005, 20006});
  CHECK(plan.placements[1].ports.at("alpha") == std::vector<int>{20000, 20001, 20002});
}

TEST_CASE("place honours a requested coordinator host and port") {
  pai::Plan plan;
  pai::Role r = role("worker", 3, 1);
  r.ports = {{"sync", 3}};
  plan.roles = {r};
  plan.coordinator_host = "h1";
  plan.coordinator_port = 20001;
  pai::place(plan, hosts(3));
  CHECK(plan.coordinator.host == "h1");
  CHECK(plan.coordinator.address == "10.1.0.1");
  CHECK(plan.coordinator.port == 20001);
  CHECK(plan.master.port == 20000);
  // The requested port sits inside the range, so h1's consecutive block skips past it.
  CHECK(plan.placements[1].ports.at("sync") == std::vector<int>{20002, 20003, 20004});
  CHECK(plan.placements[0].ports.at("sync") == std::vector<int>{20001, 20002, 20003});
}

TEST_CASE("place keeps ports apart for host names sharing one address") {
  pai::Plan plan;
  pai::Role r = role("worker", 2, 1);
  r.ports = {{"sync", 1}};
  plan.roles = {r};
  pai::place(plan, {{"a", "127.0.0.1", 0}, {"b", "127.0.0.1", 0}});
  std::set<int> used = {plan.coordinator.port, plan.master.port,
                        plan.placements[0].ports.at("sync")[0],
                        plan.placements[1].ports.at("sync")[0]};
  CHECK(used.size() == 4);
}

TEST_CASE("place finds a coordinator host among the plan's inventory") {
  pai::Plan plan;
  plan.roles = {role("worker", 1, 1)};
  plan.hosts = hosts(3);
  plan.coordinator_host = "h2";
  pai::place(plan, {plan.hosts[0]});
  CHECK(plan.coordinator.host == "h2");
  CHECK(plan.coordinator.port == 20000);
  CHECK(plan.master.port == 20000);
}

TEST_CASE("place rejects too few hosts - unknown coordinators and exhausted ranges") {
  pai::Plan plan;
  plan.roles = {role("worker", 2, 1), role("ps", 1, 1)};
  CHECK(place_error(plan, hosts(2)) == "need 3 hosts for the instances of all roles, have 2");

  pai::Plan empty;
  CHECK(place_error(empty, hosts(1)) == "the plan has no role instances to place");

  pai::Plan coord = plan;
  coord.coordinator_host = "nowhere";
  CHECK(place_error(coord, hosts(3)) == "coordinator host \"nowhere\" is not in the inventory");

  pai::Plan tight;
  pai::Role r = role("worker", 1, 1);
  r.ports = {{"sync", 2}};
  tight.roles = {r};
  tight.port_range_min = 30000;
  tight.port_range_max = 30002;
  CHECK(place_error(tight, hosts(1)) == "port range 30000-30002 exhausted on host h0");
  tight.port_range_max = 30003;
  pai::place(tight, hosts(1));
  CHECK(tight.placements[0].ports.at("sync") == std::vector<int>{30002, 30003});
}

TEST_CASE("place ranks 10000 instances") {
  pai::Plan plan;
  pai::Role r = role("worker", 10000, 8);
  r.ports = {{"sync", 1}};
  plan.roles = {r};
  std::vector<pai::Host> many;
  for (int i = 0; i < 10000; ++i)
    many.push_back({"n" + std::to_string(i), "10.2." + std::to_string(i), 8});
  pai::place(plan, many);
  CHECK(plan.world_size == 80000);
  CHECK(plan.placements.back().first_rank == 79992);
  // Speed is bench/compile's business (design §10), never a timed test.
}

}  // namespace placement_test
