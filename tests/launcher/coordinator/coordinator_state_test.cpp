#include "launcher/coordinator/coordinator_state.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace coordinator_state_test {

using namespace pai::launcher::coordinator;

namespace {

CoordinatorState make_state() {
  return CoordinatorState(pai::testing::make_test_plan(), CoordinatorSettings{},
                          Clock::time_point{});
}

}  // namespace

TEST_CASE("the node table lists the instances' hosts in order and then the spares") {
  const CoordinatorState state = make_state();
  REQUIRE(state.nodes.size() == 4);
  CHECK(state.nodes[0].name == "node-0");
  CHECK(state.nodes[2].instance == 2);
  CHECK(state.nodes[3].name == "spare-0");
  CHECK(state.nodes[3].instance == -1);
  CHECK(state.instances[1].node == 1);
  CHECK(state.find_node("spare-0") == 3);
  CHECK(state.find_node("gpu-9") == -1);
}

TEST_CASE("a plan without placements cannot be coordinated") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.placements.clear();
  CHECK_THROWS_WITH(CoordinatorState(plan, CoordinatorSettings{}, Clock::time_point{}),
                    "the plan has no placements");
}

TEST_CASE("instances are found by role and index") {
  const CoordinatorState state = make_state();
  CHECK(state.instance_name(2) == "ps-0");
  CHECK(state.find_instance("worker-1") == 1);
  CHECK(state.find_instance("ps-0") == 2);
  CHECK(state.find_instance("ps-1") == -1);
  CHECK(state.find_instance("worker-") == -1);
  CHECK(state.find_instance("worker-+1") == -1);
  CHECK(state.find_instance("worker-12345678901") == -1);
}

TEST_CASE("a node says why it is not ready") {
  Node n;
  n.name = "gpu-7";
  CHECK(n.problem(3) == "no connection");
  n.session = 4;
  n.health = Health::Checking;
  CHECK(n.problem(3) == "running checks");
  n.failed_checks = "burn, nccl";
  n.check_attempt = 2;
  CHECK(n.problem(3) == "failed checks burn, nccl, re-running checks (attempt 2 of 3)");
  n.health = Health::Failed;
  CHECK(n.problem(3) == "failed checks burn, nccl");
  n.health = Health::Ready;
  CHECK(n.problem(3) == "ready");
}

TEST_CASE("name lists stop after the given count") {
  CHECK(name_list({"a"}) == "a");
  CHECK(name_list({"a", "b", "c"}) == "a, b and c");
  CHECK(name_list({"a", "b", "c", "d"}, 2) == "a, b and 2 more");
}

TEST_CASE("durations read in seconds") {
  CHECK(duration_text(std::chrono::minutes(5)) == "300s");
  CHECK(duration_text(std::chrono::milliseconds(1500)) == "1.5s");
}

}  // namespace coordinator_state_test
