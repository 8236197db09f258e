#include "launcher/coordinator/replacement.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace replacement_test {

using namespace pai::launcher::coordinator;

namespace {

struct Fixture {
  Fixture() : state(pai::testing::make_test_plan(), CoordinatorSettings{}, Clock::time_point{}) {
    state.out = &out;
    for (std::size_t k = 0; k < state.nodes.size(); ++k) {
      state.nodes[k].session = static_cast<int>(k) + 1;
      state.nodes[k].health = Health::Ready;
      state.sessions[static_cast<int>(k) + 1] =
          PeerSession{Peer{"launcher", state.nodes[k].name, state.nodes[k].host.address},
                      static_cast<int>(k),
                      {}};
    }
  }
  std::vector<Action> out;
  CoordinatorState state;
};

}  // namespace

TEST_CASE("replacing a node moves its instance to the spare and releases it") {
  Fixture f;
  replace_node(f.state, 1, 3, "failed check burn");
  CHECK(f.state.instances[1].node == 3);
  CHECK(f.state.nodes[3].instance == 1);
  CHECK(f.state.nodes[1].instance == -1);
  CHECK(f.state.nodes[1].replaced_by == "spare-0");
  CHECK(f.state.nodes[1].session == -1);
  CHECK(f.state.sessions.count(2) == 0);
  CHECK(f.state.took_instance == std::vector<int>{3});
  REQUIRE(f.out.size() == 3);
  CHECK(std::get<Record>(f.out[0]).kind == "node-replaced");
  CHECK(std::get<Send>(f.out[1]).message.at("type") == "finish");
  CHECK(std::get<Close>(f.out[2]).session == 2);
}

TEST_CASE("only nodes whose checks failed are replaced before the timeout") {
  Fixture f;
  f.state.nodes[0].health = Health::Failed;
  f.state.nodes[0].failed_checks = "gpu";
  f.state.nodes[2].session = -1;
  f.state.nodes[2].health = Health::Absent;
  CHECK(replace_failed_nodes(f.state) == std::vector<int>{0});
  CHECK(f.state.instances[2].node == 2);
  CHECK(replace_failed_nodes(f.state).empty());
}

TEST_CASE("an assignment pai::place cannot make fails the job") {
  Fixture f;
  f.state.plan.port_range_max = f.state.plan.port_range_min;  // one port per host
  f.state.phase = Phase::Running;
  CHECK_FALSE(assign_all(f.state, "test"));
  CHECK(f.state.phase == Phase::Finished);
  const auto* finish = std::get_if<Finish>(&f.out.back());
  REQUIRE(finish != nullptr);
  CHECK(finish->exit_code == 1);
  CHECK(finish->reason.rfind("cannot place the job on its nodes: port range 20000-20000 exhausted",
                             0) == 0);
}

}  // namespace replacement_test
