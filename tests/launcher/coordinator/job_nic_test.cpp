#include "launcher/coordinator/job_nic.h"

#include <catch2/catch.hpp>

#include "machine_harness.h"
#include "support/plan_fixture.h"

namespace job_nic_test {

using namespace pai::launcher;
using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;
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
  const pai::launcher::journal::Nic record = nic.record(v[0]);
  CHECK(record.node == "node-1");
  CHECK(record.port == "mlx5_0/1");
  CHECK(record.netdev == "eth2");
  CHECK(record.problem == "errors");
  CHECK(record.counter == "hw_counters/local_ack_timeout_err");
  CHECK(record.rate == 340.0);
  CHECK(record.severity == "critical");
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

// ---- The job's run: what a verdict does ----

namespace {

// A heartbeat of a node running `instance` whose ranks sit in collectives 70% of the window,
// with its one port as `nic`.
Json nic_beat(int instance, const pai::net::NicPort& nic) {
  pai::net::NodeHeartbeat beat;
  pai::net::RankTelemetry rank{.rank = 2 * instance, .window_us = 1'000'000, .comm_us = 700'000};
  beat.instances.push_back(pai::net::HeartbeatInstance{.instance = instance,
                                                       .idle_ms = 0,
                                                       .hang_interval = 1800,
                                                       .step = 1,
                                                       .ranks = {},
                                                       .telemetry = {rank}});
  beat.nics = {nic};
  return pai::net::to_json(beat);
}

}  // namespace

TEST_CASE(
    "a critical NIC verdict is recorded, shown, counted, sent to its node - and is evidence") {
  MachineHarness h(pai::testing::make_test_plan());
  h.join_all();
  h.clear();
  const auto bad = port({{"hw_counters/local_ack_timeout_err", 340}});
  for (int beat = 0; beat < 3; ++beat) {
    h.receive("node-0", nic_beat(0, port({})));
    h.receive("node-1", nic_beat(1, bad));
    h.receive("node-2", nic_beat(2, port({})));
    h.advance(1s);
  }
  const auto records = h.records("nic");
  REQUIRE(records.size() == 1);  // named once per episode
  CHECK(records[0].fields == Json{{"node", "node-1"},
                                  {"port", "mlx5_0/1"},
                                  {"netdev", "eth2"},
                                  {"problem", "errors"},
                                  {"counter", "hw_counters/local_ack_timeout_err"},
                                  {"rate", 340.0},
                                  {"evidence",
                                   "mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s "
                                   "for 2 heartbeats"},
                                  {"severity", "critical"}});
  CHECK(records[0].line ==
        "nic (critical): node-1 mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s for 2 "
        "heartbeats");
  CHECK(h.only("node-1", "nic-verdict") ==
        Json{{"type", "nic-verdict"},
             {"port", "mlx5_0/1"},
             {"problem", "errors"},
             {"evidence",
              "mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s for 2 "
              "heartbeats"}});
  CHECK(h.sent("node-0", "nic-verdict").empty());
  CHECK(h.sent("node-1", "stop").empty());  // a verdict restarts nothing
  const std::string metrics = h.machine.metrics(h.now);
  CHECK(metrics.find("\npai_nic_verdicts_total{node=\"node-1\",problem=\"errors\"} 1\n") !=
        std::string::npos);
  const int admin = h.control();
  h.receive(admin, Json{{"type", "status"}});
  const auto status = h.sent_to(admin, "status");
  REQUIRE(status.size() == 1);
  CHECK(status[0]["nodes"][1]["lastEvent"] == records[0].line);  // `pai-launch status` shows it
}

TEST_CASE("a warning NIC verdict stays with the coordinator") {
  MachineHarness h(pai::testing::make_test_plan());
  h.join_all();
  h.clear();
  for (int beat = 0; beat < 4; ++beat) {
    h.receive("node-0", nic_beat(0, port({{"hw_counters/np_cnp_sent", 90000}})));
    h.receive("node-1", nic_beat(1, port({{"hw_counters/np_cnp_sent", 10}})));
    h.receive("node-2", nic_beat(2, port({{"hw_counters/np_cnp_sent", 10}})));
    h.advance(1s);
  }
  const auto records = h.records("nic");
  REQUIRE(records.size() == 1);
  CHECK(records[0].fields.at("node") == "node-0");
  CHECK(records[0].fields.at("problem") == "congestion");
  CHECK(records[0].fields.at("severity") == "warning");
  CHECK(h.sent("node-0", "nic-verdict").empty());
}

TEST_CASE("ports of a node that is not running, or of a paused job, are not judged") {
  MachineHarness h(pai::testing::make_test_plan());
  h.join_all();
  h.receive("node-1", exited(1, 0, 1, 0, true, "exit code 1"));  // sync: every instance stops
  h.clear();
  for (int beat = 0; beat < 3; ++beat) {
    h.receive("node-1", nic_beat(1, port({{"hw_counters/local_ack_timeout_err", 340}})));
    h.advance(1s);
  }
  CHECK(h.records("nic").empty());
}

}  // namespace job_nic_test
