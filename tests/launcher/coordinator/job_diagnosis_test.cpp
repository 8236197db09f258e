#include "launcher/coordinator/job_diagnosis.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>

#include "machine_harness.h"

namespace job_diagnosis_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

// The test plan: worker-0 on node-0 (ranks 0, 1), worker-1 on node-1 (ranks 2, 3), ps-0 on
// node-2 (rank 4); hang detection after 30 min of silence, diagnosis after 60 s in a collective.
pai::Plan diagnosed_plan_of(pai::Plan plan,
                            pai::DiagnosisAction action = pai::DiagnosisAction::Warn) {
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  plan.fault_tolerance.diagnosis.action = action;
  return plan;
}

pai::Plan diagnosed_plan(pai::DiagnosisAction action = pai::DiagnosisAction::Warn) {
  return diagnosed_plan_of(pai::testing::make_test_plan(), action);
}

// Rank 3 never entered all-reduce #10, which every other rank has waited in for 61 s.
pai::net::RankTelemetry stuck_job_rank(int rank) {
  pai::net::RankTelemetry t{.rank = rank, .step = 9, .window_us = 1000000, .quiet_ms = 61000};
  if (rank == 3) {
    t.entered = t.exited = 9;
  } else {
    t.entered = 10;
    t.exited = 9;
    t.open_ms = 61000;
    t.op = 1;
    t.comm_us = t.window_us;
  }
  return t;
}

void beat(MachineHarness& h, const std::string& node, int instance, std::vector<int> ranks,
          std::int64_t idle_ms = 0) {
  pai::net::HeartbeatInstance entry{
      .instance = instance, .idle_ms = idle_ms, .hang_interval = 1800, .step = 9, .ranks = {},
      .telemetry = {}};
  for (int r : ranks) entry.telemetry.push_back(stuck_job_rank(r));
  h.receive(node, pai::net::to_json(pai::net::NodeToCoordinator{pai::net::NodeHeartbeat{{entry}}}));
}

void beat_all(MachineHarness& h, std::int64_t idle_ms = 0) {
  beat(h, "node-0", 0, {0, 1}, idle_ms);
  beat(h, "node-1", 1, {2, 3}, idle_ms);
  beat(h, "node-2", 2, {4}, idle_ms);
}

}  // namespace

TEST_CASE("a rank missing from a collective is recorded as RankNonCommHang - and blamed for the "
          "job-wide hang") {
  MachineHarness h(diagnosed_plan());
  h.join_all();
  h.clear();
  beat_all(h);
  h.advance(1s);
  const auto verdicts = h.records("diagnosis");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].fields.at("class") == "RankNonCommHang");
  CHECK(verdicts[0].fields.at("rank") == 3);
  CHECK(verdicts[0].fields.at("node") == "node-1");
  CHECK(verdicts[0].fields.at("gpu") == 1);  // worker's ranks have GPUs: local rank 1
  CHECK(verdicts[0].fields.at("severity") == "critical");
  CHECK(verdicts[0].line.starts_with("diagnosis (critical): RankNonCommHang: rank 3 (node-1"));
  CHECK(h.sent("node-1", "stop").empty());  // warn only
  // Once per episode.
  beat_all(h);
  h.advance(1s);
  CHECK(h.records("diagnosis").size() == 1);

  // node-0 has been silent longest, but rank 3 of worker-1 is to blame.
  h.clear();
  beat(h, "node-0", 0, {0, 1}, 1900000);
  beat(h, "node-1", 1, {2, 3}, 1800000);
  beat(h, "node-2", 2, {4}, 1800000);
  h.advance(100ms);  // the job-wide check walks the instances at most every 100 ms
  const auto hang = h.records("hang");
  REQUIRE(hang.size() == 1);
  CHECK(hang[0].fields.at("instance") == "worker-1");
  CHECK(hang[0].fields.at("culprit").at("rank") == 3);
  CHECK(hang[0].line.find("the culprit: rank 3 (node-1") != std::string::npos);
  CHECK(h.only("node-1", "stop").at("reason").get<std::string>().find("RankNonCommHang") !=
        std::string::npos);
}

TEST_CASE("isolate excludes the node named and a spare takes its instance at the restart") {
  MachineHarness h(diagnosed_plan(pai::DiagnosisAction::Isolate));
  h.join("spare-0");
  h.join_all();
  h.clear();
  beat_all(h);
  h.advance(1s);
  REQUIRE(h.records("node-excluded").size() == 1);
  CHECK(h.records("node-excluded")[0].fields.at("node") == "node-1");
  // Sync: the whole job stops, with stacks, and restarts.
  for (const char* node : {"node-0", "node-1", "node-2"}) {
    CHECK(h.only(node, "stop").at("dumpStacks") == true);
  }
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  // The restart of the excluded node's instance does not say it restarts there.
  const auto restarts = h.records("restart");
  REQUIRE(restarts.size() == 3);
  const auto excluded = std::count_if(restarts.begin(), restarts.end(), [](const auto& r) {
    return r.line.rfind("restarting worker-1 (node-1, excluded) in ", 0) == 0;
  });
  CHECK(excluded == 1);
  h.clear();
  h.advance(10s);
  CHECK(h.records("node-replaced").at(0).line ==
        "node-1 replaced by spare spare-0 as worker-1: node node-1 excluded (diagnosis "
        "RankNonCommHang)");
  CHECK(h.only("node-1", "finish").at("exitCode") == 0);
  CHECK(h.only("spare-0", "assign").at("instance") == 1);
}

TEST_CASE("isolate without a spare fails the job naming the excluded node") {
  pai::Plan plan = diagnosed_plan(pai::DiagnosisAction::Isolate);
  plan.spares.clear();
  MachineHarness h(plan);
  h.join_all();
  beat_all(h);
  h.advance(1s);
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  h.advance(10s);
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->exit_code == 1);
  CHECK(finish->reason ==
        "node node-1 excluded (diagnosis RankNonCommHang) and no spare left");
}

TEST_CASE("diagnosis off records nothing") {
  pai::Plan plan = diagnosed_plan();
  plan.fault_tolerance.diagnosis.enabled = false;
  MachineHarness h(plan);
  h.join_all();
  beat_all(h);
  h.advance(1s);
  beat_all(h);
  h.advance(1s);
  CHECK(h.records("diagnosis").empty());
}

TEST_CASE("a node whose links are all slow is named, not its neighbour slow only towards it") {
  // worker-0..2 on node-0..2 (10.0.0.1-3, ranks 0-5), ps-0 on node-3 (10.0.0.4, rank 6): each
  // window, every rank spent 70% of it in collectives and made progress. node-1's ranks see
  // 5 ms to every peer; node-2's see it only on their connections to node-1 (10.0.0.2), which
  // lifts their median RTT too; a peer that is no node (a storage server) is ignored.
  MachineHarness h(diagnosed_plan_of(pai::testing::make_test_plan(3)));
  h.join_all();
  h.clear();
  const auto window = [&](int w, int instance, std::vector<int> ranks, std::int64_t rtt_us,
                          std::vector<std::string> slow_peers) {
    pai::net::HeartbeatInstance entry{.instance = instance, .idle_ms = 0, .hang_interval = 1800,
                                      .step = 5 * w + 4, .ranks = {}, .telemetry = {}};
    for (int r : ranks) {
      entry.telemetry.push_back({.rank = r, .step = 5 * w + 4, .steps = 5, .step_us = 1000000,
                                 .window_us = 1000000, .comm_us = 700000, .entered = 5 * (w + 1),
                                 .exited = 5 * (w + 1), .quiet_ms = 3, .tcp_rtt_us = rtt_us,
                                 .tcp_retrans = 0, .tcp_slow_peers = slow_peers});
    }
    const std::string node = "node-" + std::to_string(instance);
    h.receive(node,
              pai::net::to_json(pai::net::NodeToCoordinator{pai::net::NodeHeartbeat{{entry}}}));
  };
  for (int w = 0; w < 8; ++w) {
    window(w, 0, {0, 1}, 200, {"192.168.9.9"});
    window(w, 1, {2, 3}, 5000, {});
    window(w, 2, {4, 5}, 2600, {"10.0.0.2"});
    window(w, 3, {6}, 200, {});
    h.advance(1s);
  }
  const auto verdicts = h.records("diagnosis");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].fields.at("class") == "RankCommSlow");
  CHECK(verdicts[0].fields.at("node") == "node-1");
  CHECK(verdicts[0].fields.at("evidence").get<std::string>().find(
            "(node-2 is slow only on connections to it)") != std::string::npos);
}

TEST_CASE("telemetry of a rank the sender does not run is a protocol error") {
  MachineHarness h(diagnosed_plan());
  h.join_all();
  h.clear();
  beat(h, "node-0", 0, {0, 2});  // rank 2 belongs to worker-1 on node-1
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "heartbeat: instances: rank 2 is not in instance 0");
  CHECK(h.closed("node-0"));
  h.clear();
  beat(h, "node-1", 1, {2, 3, 2});  // more entries than the instance has ranks
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "heartbeat: instances: more telemetry entries than ranks");
}

}  // namespace job_diagnosis_test

namespace job_diagnosis_test {

using pai::launcher::Diagnosis;
using pai::launcher::DiagnosisClass;

namespace {

const Clock::time_point kT0 = Clock::time_point{} + std::chrono::hours(1);

CoordinatorState running_state() {
  CoordinatorState state(diagnosed_plan(pai::DiagnosisAction::Isolate), CoordinatorSettings{}, kT0);
  for (Instance& inst : state.instances) inst.run = Run::Running;
  return state;
}

}  // namespace

TEST_CASE("isolation excludes the node of the rank named - once - and only while it runs") {
  CoordinatorState state = running_state();
  const JobDiagnosis diagnosis(state);
  Diagnosis verdict;
  verdict.cls = DiagnosisClass::RankNonCommHang;
  verdict.rank = 3;
  auto isolation = diagnosis.isolation(verdict, false);
  REQUIRE(isolation.has_value());
  CHECK(isolation->instance == 1);
  CHECK(isolation->exclude_node == 1);
  CHECK(isolation->suspects.empty());

  state.nodes[1].excluded = "diagnosis RankNonCommHang";
  CHECK_FALSE(diagnosis.isolation(verdict, true).has_value());
  state.nodes[1].excluded.clear();
  state.instances[1].run = Run::Stopping;
  CHECK_FALSE(diagnosis.isolation(verdict, true).has_value());
}

TEST_CASE("a hang that names nobody restarts to test its suspects' links - when they can be") {
  CoordinatorState state = running_state();
  const JobDiagnosis diagnosis(state);
  Diagnosis verdict;
  verdict.cls = DiagnosisClass::RankCommHang;
  verdict.suspect_nodes = {2, 1, 7};
  CHECK_FALSE(diagnosis.isolation(verdict, false).has_value());
  auto isolation = diagnosis.isolation(verdict, true);
  REQUIRE(isolation.has_value());
  CHECK(isolation->exclude_node == -1);
  CHECK(isolation->instance == 2);  // the first suspect whose instance runs
  CHECK(isolation->suspects == std::vector<std::string>{"node-2", "node-1"});

  state.instances[2].run = Run::Stopping;
  CHECK(diagnosis.isolation(verdict, true)->instance == 1);
  state.instances[1].run = Run::Stopping;
  CHECK_FALSE(diagnosis.isolation(verdict, true).has_value());

  verdict.cls = DiagnosisClass::RankCommSlow;
  state.instances[1].run = Run::Running;
  CHECK_FALSE(diagnosis.isolation(verdict, true).has_value());
}

TEST_CASE("the failure a verdict stands for is retryable unless the policy is never") {
  Diagnosis verdict;
  verdict.cls = DiagnosisClass::RankCommSlow;
  verdict.evidence = "node-1 is slow";
  const auto c = verdict_failure(verdict, pai::RestartPolicy::ExitCodeAndErrorMsg);
  CHECK(c.retryable);
  CHECK(c.signature == "diagnosis:RankCommSlow");
  CHECK(c.reason == "RankCommSlow: node-1 is slow: retryable");
  const auto never = verdict_failure(verdict, pai::RestartPolicy::Never);
  CHECK_FALSE(never.retryable);
  CHECK(never.reason == "RankCommSlow: node-1 is slow: not retryable (policy never)");
}

}  // namespace job_diagnosis_test
