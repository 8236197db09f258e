#include "launcher/coordinator/job_nic.h"

#include <catch2/catch.hpp>

#include "support/plan_fixture.h"

namespace job_nic_test {

using namespace pai::launcher;
using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const Clock::time_point kT0 = Clock::time_point{} + 1h;

pai::net::NicPort port(std::vector<pai::net::NicCounterDelta> counters,
                       const std::string& state = "ACTIVE") {
  counters.push_back({"counters/port_xmit_data", 250'000'000});
  return pai::net::NicPort{.port = "mlx5_0/1",
                           .netdev = "eth2",
                           .state = state,
                           .window_ms = 1000,
                           .counters = counters};
}

}  // namespace

TEST_CASE("a port's deltas become rates over its window") {
  const NicPortSample s = nic_sample(pai::net::NicPort{
      .port = "mlx5_0/1",
      .netdev = "eth2",
      .state = "ACTIVE",
      .window_ms = 500,
      .counters = {{"hw_counters/np_cnp_sent", 50}, {"hw_counters/not_pais", 7}}});
  CHECK(s.seconds == 0.5);
  CHECK(s.rates.at("hw_counters/np_cnp_sent") == 100);
  CHECK(s.rates.count("hw_counters/not_pais") == 0);
  CHECK(nic_sample(pai::net::NicPort{.port = "p",
                                     .netdev = "",
                                     .state = "",
                                     .window_ms = 0,
                                     .counters = {{"counters/symbol_error", 1}}})
            .rates.empty());
}

TEST_CASE("errors on one node's port are named with its node - and are its evidence") {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{}, kT0);
  JobNic nic(state);
  CHECK_FALSE(nic.next_due().has_value());
  const auto bad = port({{"hw_counters/local_ack_timeout_err", 340}});
  CHECK(nic.observe(1, {bad}, true, kT0).empty());
  CHECK(nic.observe(0, {port({})}, true, kT0).empty());
  const auto v = nic.observe(1, {bad}, true, kT0 + 1s);
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 1);
  CHECK(nic.line(v[0]) ==
        "nic (critical): node-1 mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s for 2 "
        "heartbeats");
  const Json record = nic.record(v[0]);
  CHECK(record.at("node") == "node-1");
  CHECK(record.at("problem") == "errors");
  CHECK(record.at("counter") == "hw_counters/local_ack_timeout_err");
  CHECK(record.at("rate") == 340.0);
  CHECK(record.at("severity") == "critical");
  CHECK(nic.evidence(1) ==
        "node-1 mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s for 2 heartbeats");
  CHECK(nic.evidence(0).empty());
  nic.forget(1);
  CHECK(nic.evidence(1).empty());
}

TEST_CASE("the job-wide rules are judged at most once a second") {
  CoordinatorState state(pai::testing::make_test_plan(), CoordinatorSettings{}, kT0);
  JobNic nic(state);
  const auto storm = port({{"hw_counters/np_cnp_sent", 90000}});
  const auto calm = port({{"hw_counters/np_cnp_sent", 10}});
  std::vector<NicVerdict> found;
  for (int beat = 0; beat < 3; ++beat) {
    const auto t = kT0 + std::chrono::seconds(beat);
    nic.observe(0, {storm}, true, t);
    nic.observe(1, {calm}, true, t);
    nic.observe(2, {calm}, true, t);
    CHECK(nic.next_due() <= t);
    for (const NicVerdict& v : nic.decide(t)) found.push_back(v);
    CHECK(nic.decide(t + 100ms).empty());
    CHECK(nic.next_due() == t + 1s);
  }
  REQUIRE(found.size() == 1);
  CHECK(found[0].node == 0);
  CHECK(found[0].problem == NicProblem::Congestion);
}

TEST_CASE("diagnosis off - or nic off - judges nothing") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.diagnosis.nic.enabled = false;
  CoordinatorState state(plan, CoordinatorSettings{}, kT0);
  JobNic nic(state);
  const auto down = port({}, "DOWN");
  nic.observe(0, {port({})}, true, kT0);
  CHECK(nic.observe(0, {down}, true, kT0 + 1s).empty());
  CHECK_FALSE(nic.next_due().has_value());
}

}  // namespace job_nic_test
