#include "launcher/coordinator/job_swap.h"

#include <catch2/catch.hpp>
#include <csignal>

#include "machine_harness.h"

namespace job_swap_test {

using namespace pai::launcher;
using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

// The test plan: worker-0 on node-0 (ranks 0, 1), worker-1 on node-1 (ranks 2, 3), ps-0 on
// node-2 (rank 4), spare-0; swaps after 10 s, a checkpoint waited for 30 s.
pai::Plan swap_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  plan.fault_tolerance.checkpoint_plan.interval_seconds = 3600;
  plan.fault_tolerance.swap = {
      .enabled = true, .after_seconds = 10, .checkpoint_timeout_seconds = 30};
  return plan;
}

// One heartbeat window `w` of every node: 5 steps a second, each rank 70% of it in
// collectives, but rank 3 only 30% while `slow` (it computes longer; the others wait for it).
void window(MachineHarness& h, int w, bool slow) {
  const auto entry = [&](int instance, std::vector<int> ranks) {
    pai::net::HeartbeatInstance e{.instance = instance,
                                  .idle_ms = 0,
                                  .hang_interval = 1800,
                                  .step = 5 * w + 4,
                                  .ranks = {},
                                  .telemetry = {}};
    for (int r : ranks) {
      e.telemetry.push_back({.rank = r,
                             .step = 5 * w + 4,
                             .steps = 5,
                             .step_us = 1000000,
                             .window_us = 1000000,
                             .comm_us = slow && r == 3 ? 300000 : 700000,
                             .entered = 5 * (w + 1),
                             .exited = 5 * (w + 1),
                             .quiet_ms = 3});
    }
    return pai::net::to_json(pai::net::NodeToCoordinator{pai::net::NodeHeartbeat{{e}}});
  };
  h.receive("node-0", entry(0, {0, 1}));
  h.receive("node-1", entry(1, {2, 3}));
  h.receive("node-2", entry(2, {4}));
  h.advance(1s);
}

// Windows from `first` while rank 3 is slow, until the swap begins (at most `most` windows);
// the next window's number.
int slow_until_swap(MachineHarness& h, int first, int most = 30) {
  int w = first;
  while (w < first + most && h.records("swap-started").empty()) window(h, w++, true);
  return w;
}

// A heartbeat of `node` running `instance` whose RDMA port counted `errors` ACK timeouts in the
// second (none when 0).
void nic_beat(MachineHarness& h, const std::string& node, int instance, std::int64_t errors) {
  pai::net::NodeHeartbeat m{.instances = {{.instance = instance,
                                           .idle_ms = 0,
                                           .hang_interval = 1800,
                                           .step = 9,
                                           .ranks = {},
                                           .telemetry = {}}},
                            .gpus = {},
                            .nics = {{.port = "mlx5_0/1",
                                      .netdev = "eth2",
                                      .state = "ACTIVE",
                                      .window_ms = 1000,
                                      .counters = {{"counters/port_xmit_data", 250'000'000}}}}};
  if (errors > 0) m.nics[0].counters.push_back({"hw_counters/local_ack_timeout_err", errors});
  h.receive(node, pai::net::to_json(pai::net::NodeToCoordinator{m}));
}

Diagnosis verdict(DiagnosisClass cls, int rank, int node) {
  Diagnosis v;
  v.cls = cls;
  v.rank = rank;
  v.node = node;
  return v;
}

Json checkpointed(int instance, std::int64_t step, std::int64_t request) {
  return pai::net::to_json(pai::net::NodeToCoordinator{
      pai::net::Checkpointed{.instance = instance, .step = step, .request = request}});
}

}  // namespace

TEST_CASE(
    "a node that stays slow is swapped for the spare after a checkpoint - no failure "
    "counted") {
  MachineHarness h(swap_plan());
  h.join("spare-0");
  h.join_all();
  h.clear();
  const int w = slow_until_swap(h, 0);
  const auto verdicts = h.records("diagnosis");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].fields.at("class") == "RankNonCommSlow");
  const auto started = h.records("swap-started");
  REQUIRE(started.size() == 1);
  // The verdict came after 5 windows; the swap 10 s later, not before.
  CHECK(w >= 15);
  CHECK(started[0].fields.at("node") == "node-1");
  CHECK(started[0].fields.at("instance") == "worker-1");
  CHECK(started[0].fields.at("class") == "RankNonCommSlow");
  CHECK(started[0].fields.at("request") == 1);
  CHECK(started[0].line.starts_with(
      "swapping node node-1 (worker-1) for a spare: its RankNonCommSlow verdict held 10s"));
  // Every running node is asked for checkpoint 1, and to report its saves.
  for (int i = 0; i < 3; ++i) {
    CHECK(h.only("node-" + std::to_string(i), "checkpoint-advice") ==
          Json{{"type", "checkpoint-advice"},
               {"intervalSeconds", 3600},
               {"request", 1},
               {"report", true}});
  }
  CHECK(h.sent("node-1", "stop").empty());

  // Rank 0 saved checkpoint 1: the job stops.
  h.clear();
  h.receive("node-0", checkpointed(0, 40, 1));
  REQUIRE(h.records("swap-saved").size() == 1);
  CHECK(h.records("swap-saved")[0].fields.at("step") == 40);
  CHECK(h.records("swap-saved")[0].line ==
        "swap of node node-1: checkpoint of step 40 saved by worker-0; stopping the job");
  for (int i = 0; i < 3; ++i) {
    const Json stop = h.only("node-" + std::to_string(i), "stop");
    CHECK(stop.at("signal") == SIGTERM);
    CHECK(stop.at("reason") == "paused by the swap of node node-1");
  }

  // A user cannot start the job in the middle of the swap's stop.
  const int admin = h.control();
  h.receive(admin, Json{{"type", "start"}});
  CHECK(h.only("admin-host", "error").at("text") ==
        "a swap of node node-1 is stopping the job: it starts again by itself once its "
        "instances stopped");

  h.clear();
  h.stopped("node-0", 0);
  h.stopped("node-2", 2);
  CHECK(h.records("swap-done").empty());
  h.advance(2s);
  h.stopped("node-1", 1);
  const auto done = h.records("swap-done");
  REQUIRE(done.size() == 1);
  CHECK(done[0].fields.at("node") == "node-1");
  CHECK(done[0].fields.at("spare") == "spare-0");
  CHECK(done[0].fields.at("step") == 40);
  CHECK(done[0].fields.at("stopMs") == 2000);
  CHECK(done[0].line ==
        "swapped node node-1 for spare spare-0: the job starts again from step "
        "40's checkpoint, no failure counted");
  CHECK(h.records("node-replaced").at(0).line ==
        "node-1 replaced by spare spare-0 as worker-1: node node-1 excluded (swapped: "
        "RankNonCommSlow)");
  CHECK(h.only("node-1", "finish").at("exitCode") == 0);
  CHECK(h.only("spare-0", "assign").at("instance") == 1);
  // Each instance's next attempt, no restart of the policy's.
  CHECK(h.only("spare-0", "start") == Json{{"type", "start"}, {"instance", 1}, {"attempt", 1}});
  CHECK(h.only("node-0", "start").at("attempt") == 1);
  CHECK(h.only("node-2", "start").at("attempt") == 1);
  CHECK(h.records("restart").empty());
  h.receive(admin, Json{{"type", "status"}});
  const Json status = h.only("admin-host", "status");  // kept: the loop reads into it
  CHECK(status.at("phase") == "running");
  for (const Json& node : status.at("nodes")) CHECK(node.at("restarts") == 0);

  // The job runs on; a save the swap no longer waits for changes nothing.
  h.clear();
  h.receive("node-0", checkpointed(0, 41, 1));
  CHECK(h.log.empty());
}

TEST_CASE("a save of an earlier request is not the swap's checkpoint") {
  MachineHarness h(swap_plan());
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "checkpoint-now"}});  // request 1
  h.clear();
  slow_until_swap(h, 0);
  REQUIRE(h.records("swap-started").at(0).fields.at("request") == 2);
  h.receive("node-0", checkpointed(0, 12, 1));
  CHECK(h.records("swap-saved").empty());
  CHECK(h.sent("node-1", "stop").empty());
  // A later one (a user's checkpoint-now while the swap waits) is.
  h.receive(admin, Json{{"type", "checkpoint-now"}});
  CHECK(h.sent("node-1", "checkpoint-advice").back().at("report") == true);
  h.receive("node-0", checkpointed(0, 13, 3));
  CHECK(h.records("swap-saved").size() == 1);
}

TEST_CASE("a slow verdict that clears before swap.after swaps nothing") {
  MachineHarness h(swap_plan());
  h.join("spare-0");
  h.join_all();
  h.clear();
  int w = 0;
  while (w < 10 && h.records("diagnosis").empty()) window(h, w++, true);
  REQUIRE(h.records("diagnosis").size() == 1);
  // Five windows in a row clear it (slowWindows); well past swap.after nothing happens.
  for (int i = 0; i < 20; ++i) window(h, w++, false);
  CHECK(h.records("swap-started").empty());
  CHECK(h.sent("node-1", "checkpoint-advice").empty());
}

TEST_CASE("a swap without a checkpoint within checkpointTimeout is given up - the job runs on") {
  MachineHarness h(swap_plan());
  h.join("spare-0");
  h.join_all();
  int w = slow_until_swap(h, 0);
  REQUIRE(h.records("swap-started").size() == 1);
  h.clear();
  for (int i = 0; i < 31 && h.records("swap-abandoned").empty(); ++i) window(h, w++, true);
  const auto abandoned = h.records("swap-abandoned");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0].fields.at("node") == "node-1");
  CHECK(abandoned[0].line ==
        "swap of node node-1 given up: no checkpoint was saved within 30s "
        "(swap.checkpointTimeout): do the ranks call should_checkpoint() and save with "
        "pai.checkpoint?");
  CHECK(h.sent("node-1", "stop").empty());
  CHECK(h.sent("spare-0", "assign").empty());
  // A late save changes nothing, and the node is not swapped again in this run.
  h.receive("node-0", checkpointed(0, 99, 1));
  CHECK(h.records("swap-saved").empty());
  for (int i = 0; i < 30; ++i) window(h, w++, true);
  CHECK(h.records("swap-started").empty());
}

TEST_CASE("a swap waits for a ready spare, and one that fails while waiting is given up") {
  pai::Plan plan = swap_plan();
  MachineHarness h(plan);
  h.join_all();  // spare-0 has not joined
  h.clear();
  int w = 0;
  for (; w < 25; ++w) window(h, w, true);
  CHECK(h.records("diagnosis").size() == 1);
  CHECK(h.records("swap-started").empty());
  // The spare joins: the swap begins within a second.
  h.join("spare-0");
  window(h, w++, true);
  window(h, w++, true);
  REQUIRE(h.records("swap-started").size() == 1);

  // A rank fails while the swap waits: the job restarts and the swap is given up.
  h.clear();
  h.receive("node-2", exited(2, 0, 1, 0, true, "NCCL error"));
  h.advance(1s);
  const auto abandoned = h.records("swap-abandoned");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0].fields.at("reason") == "the job is restarting");
}

TEST_CASE("the coordinator's own node is never swapped out") {
  CoordinatorSettings settings;
  settings.own_node = "node-1";
  MachineHarness h(swap_plan(), settings);
  h.join("spare-0");
  h.join_all();
  h.clear();
  for (int w = 0; w < 20; ++w) window(h, w, true);
  CHECK(h.records("swap-started").empty());
  const auto abandoned = h.records("swap-abandoned");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0].line ==
        "swap of node node-1 given up: the coordinator runs on it (its launcher cannot leave "
        "the job)");
  CHECK(h.sent("node-1", "checkpoint-advice").empty());
}

TEST_CASE("a checkpointed report of another node's instance is a protocol error") {
  MachineHarness h(swap_plan());
  h.join("spare-0");
  h.join_all();
  h.clear();
  h.receive("node-0", checkpointed(1, 5, 1));
  CHECK(h.closed("node-0"));
}

TEST_CASE("JobSwap: only slow verdicts naming a node are candidates, each node once") {
  const pai::SwapPolicy policy{
      .enabled = true, .after_seconds = 10, .checkpoint_timeout_seconds = 30};
  JobSwap swap(policy);
  const auto t0 = JobSwap::Clock::time_point{} + 1h;
  const auto holds = [](const SwapCause&) { return true; };
  swap.noticed(verdict(DiagnosisClass::RankNonCommHang, 3, 1), t0);
  swap.noticed(verdict(DiagnosisClass::RankCommSlow, -1, -1), t0);
  CHECK_FALSE(swap.next_due().has_value());
  swap.noticed(verdict(DiagnosisClass::RankCommSlow, -1, 2), t0 + 3s);
  swap.noticed(verdict(DiagnosisClass::RankNonCommSlow, 3, 1), t0 + 5s);
  CHECK(swap.next_due() == t0 + 13s);
  swap.checked(t0 + 12s);
  CHECK_FALSE(swap.due(t0 + 12s, holds).has_value());
  CHECK(swap.next_due() == t0 + 13s);
  // Due but not begun (no spare yet): looked at again a second later, not in a loop.
  swap.checked(t0 + 14s);
  CHECK(swap.next_due() == t0 + 15s);
  const auto first = swap.due(t0 + 14s, holds);
  REQUIRE(first.has_value());
  CHECK(first->node == 2);
  swap.begin(*first, 7, t0 + 14s);
  CHECK(swap.phase() == JobSwap::Phase::Waiting);
  CHECK(swap.next_due() == t0 + 15s);  // looked at every second
  swap.checked(t0 + 44s);
  CHECK(swap.next_due() == t0 + 44s);  // the checkpoint's deadline
  CHECK_FALSE(swap.due(t0 + 20s, holds).has_value());
  swap.end();
  // node 2 is spent; node 1 is next, unless its verdict no longer holds.
  swap.noticed(verdict(DiagnosisClass::RankCommSlow, -1, 2), t0 + 20s);
  CHECK(swap.due(t0 + 20s, holds)->node == 1);
  CHECK_FALSE(swap.due(t0 + 20s, [](const SwapCause&) { return false; }).has_value());
  CHECK_FALSE(swap.next_due().has_value());
}

TEST_CASE("JobSwap: a critical NIC verdict makes its node a candidate, a warning does not") {
  const pai::SwapPolicy policy{
      .enabled = true, .after_seconds = 10, .checkpoint_timeout_seconds = 30};
  JobSwap swap(policy);
  const auto t0 = JobSwap::Clock::time_point{} + 1h;
  NicVerdict congestion{.node = 1,
                        .port = "mlx5_0/1",
                        .netdev = "eth2",
                        .problem = NicProblem::Congestion,
                        .counter = "hw_counters/np_cnp_sent",
                        .rate = 5000,
                        .critical = false,
                        .evidence = "storm"};
  swap.noticed(congestion, "node-1", t0);
  CHECK_FALSE(swap.next_due().has_value());
  NicVerdict errors = congestion;
  errors.problem = NicProblem::Errors;
  errors.critical = true;
  errors.evidence = "mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s for 2 heartbeats";
  swap.noticed(errors, "node-1", t0);
  const auto cause = swap.due(t0 + 10s, [](const SwapCause& c) { return c.nic.has_value(); });
  REQUIRE(cause.has_value());
  CHECK(cause->node == 1);
  CHECK(cause->node_name == "node-1");
  CHECK(cause->cls == "nic errors");
  CHECK(cause->evidence == errors.evidence);
  CHECK_FALSE(cause->verdict.has_value());
}

TEST_CASE("a port whose errors keep rising gets its node swapped") {
  MachineHarness h(swap_plan());
  h.join("spare-0");
  h.join_all();
  h.clear();
  for (int w = 0; w < 15 && h.records("swap-started").empty(); ++w) {
    nic_beat(h, "node-0", 0, 0);
    nic_beat(h, "node-1", 1, 340);
    nic_beat(h, "node-2", 2, 0);
    h.advance(1s);
  }
  const auto started = h.records("swap-started");
  REQUIRE(started.size() == 1);
  CHECK(started[0].fields.at("node") == "node-1");
  CHECK(started[0].fields.at("class") == "nic errors");
  CHECK(h.sent("node-1", "checkpoint-advice").back().at("report") == true);

  // One clean window ends a NIC episode: a port that recovered before swap.after swaps nothing.
  MachineHarness quiet(swap_plan());
  quiet.join("spare-0");
  quiet.join_all();
  quiet.clear();
  const auto beat_quiet = [&](std::int64_t errors) {
    nic_beat(quiet, "node-1", 1, errors);
    quiet.advance(1s);
  };
  for (int w = 0; w < 3; ++w) beat_quiet(340);
  REQUIRE(quiet.records("nic").size() == 1);
  for (int w = 0; w < 15; ++w) beat_quiet(0);
  CHECK(quiet.records("swap-started").empty());
}

TEST_CASE("JobSwap: off, nothing is a candidate") {
  const pai::SwapPolicy policy{};
  JobSwap swap(policy);
  swap.noticed(verdict(DiagnosisClass::RankNonCommSlow, 3, 1), JobSwap::Clock::time_point{});
  CHECK_FALSE(swap.next_due().has_value());
  CHECK_FALSE(swap.enabled());
}

}  // namespace job_swap_test
