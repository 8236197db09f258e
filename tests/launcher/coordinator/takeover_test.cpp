#include "launcher/coordinator/takeover.h"

#include <catch2/catch.hpp>

#include "launcher/coordinator/coordinator_machine.h"
#include "machine_harness.h"

namespace takeover_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;
using pai::launcher::PolicySnapshot;

namespace {

// The state of a job whose three instances ran: worker-0 restarted twice, worker-1 succeeded,
// ps-0 restarted once.
TakeoverState ran_twice() {
  return TakeoverState{
      .policy = PolicySnapshot{{2, 0, 1},
                               {PolicySnapshot::Outcome::Running, PolicySnapshot::Outcome::Succeeded,
                                PolicySnapshot::Outcome::Running},
                               {{"signal:9", 2}}},
      .first_start_unix_ms = 1'700'000'000'000,
      .out = {}};
}

CoordinatorSettings taking_over(TakeoverState state, const std::string& lost = "node-0") {
  CoordinatorSettings settings;
  settings.takeover = Takeover{.lost_node = lost, .state = std::move(state)};
  return settings;
}

std::string refusal(const Json& json) {
  try {
    takeover_state_from_json(json, 3, 4);
  } catch (const TakeoverStateError& e) {
    return e.what();
  }
  FAIL("accepted: " << json.dump());
  return "";
}

}  // namespace

TEST_CASE("a takeover state survives its JSON") {
  TakeoverState state = ran_twice();
  state.out = {{"node-2", "replaced by spare spare-0"}};
  CHECK(takeover_state_from_json(Json::parse(to_json(state).dump()), 3, 4) == state);
}

TEST_CASE("a bad takeover state is refused naming its field") {
  const Json good = to_json(ran_twice());
  CHECK(refusal(Json::array()) == "expected an object");
  Json j = good;
  j.erase("policy");
  CHECK(refusal(j) == "policy: missing");
  j = good;
  j["policy"] = 5;
  CHECK(refusal(j) == "policy: expected an object, got 5");
  j = good;
  j["policy"]["restarts"][0] = "x";
  CHECK(refusal(j) == "policy.restarts[0]: expected a count from 0 to 2147483647, got \"x\"");
  j = good;
  j["firstStartUnixMs"] = -1;
  CHECK(refusal(j) == "firstStartUnixMs: expected a time in ms since 1970");
  j = good;
  j["out"] = Json{{"a", 1}};
  CHECK(refusal(j) == "out.a: expected a reason");
  j = good;
  j["out"] = Json{{"a", ""}, {"b", ""}, {"c", ""}, {"d", ""}, {"e", ""}};
  CHECK(refusal(j) == "out: 5 nodes, more than the job's 4");
}

TEST_CASE("a coordinator taking over gives the lost node's instance to a spare and restarts from "
          "where the policy stood") {
  MachineHarness h(pai::testing::make_test_plan(), taking_over(ran_twice()));
  h.join("node-1");
  h.join("node-2");
  CHECK(h.records("node-excluded").size() == 1);
  CHECK(h.records("node-excluded")[0].fields.at("node") == "node-0");
  CHECK(h.sent("node-1", "start").empty());
  h.join("spare-0");
  CHECK(h.records("node-replaced").size() == 1);
  // As at any restart, the nodes check themselves again first.
  CHECK(h.sent("spare-0", "run-checks").size() == 1);
  h.checks("spare-0");
  h.checks("node-2");
  // worker-0 (on the spare now) and ps-0 start at their next attempt; worker-1 had succeeded.
  CHECK(h.only("spare-0", "start") == Json{{"type", "start"}, {"instance", 0}, {"attempt", 3}});
  CHECK(h.only("node-2", "start") == Json{{"type", "start"}, {"instance", 2}, {"attempt", 2}});
  CHECK(h.sent("node-1", "start").empty());
  CHECK_FALSE(h.finish());
}

TEST_CASE("a coordinator taking over starts past what the launchers ran where etcd's state lags") {
  MachineHarness h(pai::testing::make_test_plan(), taking_over(ran_twice()));
  h.join("spare-0");
  h.join("node-1");
  // ps-0 ran attempt 3 on node-2 though the lost coordinator's state says 1 restart.
  h.connect("node-2");
  h.receive("node-2", Json{{"type", "join"},
                           {"node", "node-2"},
                           {"checks", passing_checks()},
                           {"pid", 4242},
                           {"ranInstance", 2},
                           {"ranAttempt", 3}});
  h.checks("spare-0");
  h.checks("node-2");
  CHECK(h.only("node-2", "start").at("attempt") == 4);
  CHECK(h.only("spare-0", "start").at("attempt") == 3);
}

TEST_CASE("a coordinator taking over without a spare fails the job at once") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.spares.clear();
  MachineHarness h(plan, taking_over(ran_twice()));
  h.join("node-1");
  const auto finish = h.finish();
  REQUIRE(finish);
  CHECK(finish->exit_code == 1);
  CHECK(finish->reason ==
        "the coordinator on node-0 was lost and no spare is left to take the instances of 1 "
        "node(s) out of the job");
}

TEST_CASE("a coordinator taking over keeps out the nodes its predecessor had put out") {
  TakeoverState state = ran_twice();
  state.out = {{"node-1", "replaced by spare spare-0"}};
  pai::Plan plan = pai::testing::make_test_plan();
  MachineHarness h(plan, taking_over(state));
  // node-0 lost and node-1 out, one spare: not enough.
  h.join("node-2");
  REQUIRE(h.finish());
  CHECK(h.finish()->reason.find("instances of 2 node(s)") != std::string::npos);
}

TEST_CASE("a coordinator taking over a job that never started starts it from the beginning") {
  MachineHarness h(pai::testing::make_test_plan(), taking_over(TakeoverState{}));
  h.join("spare-0");
  h.join("node-1");
  h.join("node-2");
  CHECK(h.only("spare-0", "start").at("attempt") == 0);
}

TEST_CASE("the leader hears the state to publish at the start and at every change") {
  std::vector<TakeoverState> published;
  CoordinatorSettings settings;
  settings.publish_state = [&](const TakeoverState& s) { published.push_back(s); };
  MachineHarness h(pai::testing::make_test_plan(), settings);
  h.join_all();
  REQUIRE(published.size() == 1);
  CHECK(published[0].first_start_unix_ms > 0);
  CHECK(published[0].policy.restart_counts == std::vector<int>{0, 0, 0});
  // A retryable failure of worker-1: every instance stops (sync) and restarts.
  h.receive("node-1", exited(1, 0, 1, 0, true, "NCCL error: retryable"));
  for (int i = 0; i < 3; ++i) h.stopped("node-" + std::to_string(i), i);
  h.advance(std::chrono::seconds(30));
  REQUIRE(published.size() >= 2);
  CHECK(published.back().policy.restart_counts == std::vector<int>{1, 1, 1});
  CHECK(published.back().policy.same_error.at("pattern:NCCL error") == 1);
  CHECK(published.back().first_start_unix_ms == published[0].first_start_unix_ms);
}

}  // namespace takeover_test
