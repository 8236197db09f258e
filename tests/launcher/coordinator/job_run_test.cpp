#include "launcher/coordinator/job_run.h"

#include <catch2/catch.hpp>
#include <csignal>

#include "machine_harness.h"

namespace job_run_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

const std::vector<std::string> kNodes = {"node-0", "node-1", "node-2"};

pai::Plan test_plan(pai::FaultToleranceMode mode = pai::FaultToleranceMode::Sync,
                    bool spares = true) {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.mode = mode;
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  if (!spares) plan.spares.clear();
  return plan;
}

Json retryable_exit(int instance) {
  return exited(instance, 0, 1, 0, true, "exit code 1: retryable (matched \"NCCL error\")");
}

}  // namespace

TEST_CASE("sync - a failure stops every instance - then all restart after the backoff and checks") {
  MachineHarness h(test_plan());
  h.join_all();
  h.clear();
  h.receive("node-1", retryable_exit(1));
  for (int i = 0; i < 3; ++i) {
    const Json stop = h.only(kNodes[i], "stop");
    CHECK(stop.at("instance") == i);
    CHECK(stop.at("signal") == SIGTERM);
    CHECK(stop.at("dumpStacks") == false);
    CHECK(stop.at("reason") ==
          "rank 2 (worker-1 local rank 0): exit code 1: retryable (matched \"NCCL error\")");
  }
  CHECK(h.records("exited").at(0).line ==
        "rank 2 (worker-1 local rank 0 on node-1) failed: exit code 1: retryable (matched \"NCCL "
        "error\")");
  CHECK(h.records("stop").at(0).line ==
        "stopping worker-0, worker-1 and ps-0: rank 2 (worker-1 local rank 0): exit code 1: "
        "retryable "
        "(matched \"NCCL error\")");

  h.clear();
  h.receive("node-0", exited(0, 1, 0, SIGTERM, false, "", true));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  const auto restarts = h.records("restart");
  REQUIRE(restarts.size() == 3);
  CHECK(restarts[0].fields.at("attempt") == 1);
  CHECK(restarts[0].line.rfind("restarting worker-0 on node-0 in 10s (restart 1 of 5): ", 0) == 0);
  REQUIRE(h.machine.next_deadline().has_value());
  CHECK(*h.machine.next_deadline() == h.now + 2s);  // the next heartbeat comes first

  h.clear();
  h.advance(9999ms);
  CHECK(h.sent("node-0", "run-checks").empty());
  h.advance(1ms);
  for (const auto& node : kNodes) {
    CHECK(h.only(node, "run-checks") == Json{{"type", "run-checks"}, {"attempt", 1}});
  }
  h.clear();
  h.checks("node-0");
  h.checks("node-1");
  CHECK(h.sent("node-0", "start").empty());  // the whole job starts together
  h.checks("node-2");
  for (int i = 0; i < 3; ++i) {
    CHECK(h.only(kNodes[i], "start") == Json{{"type", "start"}, {"instance", i}, {"attempt", 1}});
  }
}

TEST_CASE("a restart whose nodes' facts changed records the drift since the attempt that ran") {
  MachineHarness h(test_plan());
  h.join_all();
  CHECK(h.records("fabric-drift").empty());  // the first start has nothing to compare with
  h.receive("node-1", retryable_exit(1));
  for (int i = 0; i < 3; ++i) h.stopped(kNodes[i], i);
  h.advance(10s);
  h.clear();
  h.checks("node-0");
  h.checks("node-1", passing_checks("560.35.03"));  // its driver was upgraded meanwhile
  h.checks("node-2");
  const auto drift = h.records("fabric-drift");
  REQUIRE(drift.size() == 1);
  CHECK(drift[0].fields == Json{{"attempt", 1},
                                {"since", 0},
                                {"changes",
                                 {{{"node", "node-1"},
                                   {"key", "gpu.driver"},
                                   {"before", "550.54.15"},
                                   {"after", "560.35.03"}}}}});
  CHECK(drift[0].line ==
        "fabric drift since attempt 0:\n  node-1: gpu.driver 550.54.15 -> 560.35.03");

  // The next restart compares with attempt 1: nothing changed since.
  h.receive("node-1", retryable_exit(1));
  for (int i = 0; i < 3; ++i) h.stopped(kNodes[i], i);
  h.advance(20s);
  h.clear();
  h.checks("node-0");
  h.checks("node-1", passing_checks("560.35.03"));
  h.checks("node-2");
  REQUIRE(h.sent("node-0", "start").size() == 1);
  CHECK(h.records("fabric-drift").empty());
}

TEST_CASE("async - only the failed instance stops and restarts") {
  MachineHarness h(test_plan(pai::FaultToleranceMode::Async));
  h.join_all();
  h.clear();
  h.receive("node-1", retryable_exit(1));
  CHECK(h.sent("node-0", "stop").empty());
  CHECK(h.only("node-1", "stop").at("instance") == 1);
  h.stopped("node-1", 1);
  h.clear();
  h.advance(10s);
  CHECK(h.sent("node-0", "run-checks").empty());
  CHECK(h.only("node-1", "run-checks").at("attempt") == 1);
  h.checks("node-1");
  CHECK(h.only("node-1", "start") == Json{{"type", "start"}, {"instance", 1}, {"attempt", 1}});
  CHECK(h.sent("node-0", "start").empty());
}

TEST_CASE("a restart without sanity checks starts at once after the backoff") {
  pai::Plan plan = test_plan(pai::FaultToleranceMode::Async);
  plan.sanity_check.enabled = false;
  MachineHarness h(plan);
  h.join_all();
  h.receive("node-1", retryable_exit(1));
  h.stopped("node-1", 1);
  h.clear();
  h.advance(10s);
  CHECK(h.sent("node-1", "run-checks").empty());
  CHECK(h.only("node-1", "start").at("attempt") == 1);
}

TEST_CASE("exhausted restarts fail the job - finish goes to every launcher with the summary") {
  pai::Plan plan = test_plan();
  plan.fault_tolerance.max_restarts = 0;
  MachineHarness h(plan);
  h.join("spare-0");
  h.join_all();
  h.receive("node-1", Json{{"type", "failure"},
                           {"instance", 1},
                           {"rank", 2},
                           {"summary", "rank 2: NCCL error: unhandled system error"}});
  h.receive("node-1", retryable_exit(1));
  CHECK_FALSE(h.finish().has_value());  // waits until everything stopped
  h.clear();
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->exit_code == 1);
  const std::string reason =
      "rank 2 (worker-1 local rank 0): exit code 1: retryable (matched \"NCCL error\"), but "
      "maxRestarts "
      "(0) is exhausted\nrank 2: NCCL error: unhandled system error";
  CHECK(finish->reason == reason);
  for (const char* node : {"node-0", "node-1", "node-2", "spare-0"}) {
    CHECK(h.only(node, "finish") == Json{{"type", "finish"}, {"exitCode", 1}, {"reason", reason}});
  }
  const auto failed = h.records("job-failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].line == "job failed: " + reason);
  CHECK(failed[0].fields.at("instance") == "worker-1");
  CHECK(failed[0].fields.at("summary") == "rank 2: NCCL error: unhandled system error");
  CHECK(h.machine.finished());
}

TEST_CASE("every instance succeeding completes the job") {
  MachineHarness h(test_plan());
  h.join_all();
  h.clear();
  h.receive("node-0", exited(0, 0, 0, 0, false, ""));
  h.receive("node-0", exited(0, 1, 0, 0, false, ""));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  CHECK_FALSE(h.finish().has_value());
  h.stopped("node-2", 2);
  REQUIRE(h.finish().has_value());
  CHECK(h.finish()->exit_code == 0);
  CHECK(h.only("node-1", "finish") ==
        Json{{"type", "finish"}, {"exitCode", 0}, {"reason", "the job succeeded"}});
  CHECK(h.records("job-succeeded").at(0).line == "job succeeded");
}

TEST_CASE("a launcher that gave up is lost for its reason - not its closed connection") {
  MachineHarness h(test_plan());
  h.join_all();
  h.clear();
  h.receive("node-1", Json{{"type", "node-failed"},
                           {"reason",
                            "cannot serve the ranks' store on 10.0.0.2:29500: "
                            "Address already in use"}});
  CHECK(h.records("node-lost").empty());  // not before its connection closes
  h.disconnect("node-1", "connection closed");
  CHECK(h.records("node-lost").at(0).line ==
        "node node-1 (worker-1) lost: failed: cannot serve the ranks' store on "
        "10.0.0.2:29500: Address already in use");
  CHECK(h.only("node-0", "stop").at("reason") ==
        "worker-1: launcher on node-1 lost: failed: cannot serve the ranks' store on "
        "10.0.0.2:29500: Address already in use");
  // During the rendezvous too.
  MachineHarness r(test_plan());
  r.join("node-0");
  r.receive("node-0", Json{{"type", "node-failed"}, {"reason", "out of descriptors"}});
  r.disconnect("node-0", "connection closed");
  CHECK(r.records("disconnected").at(0).fields.at("reason") == "failed: out of descriptors");
  // An empty reason is a protocol error: the connection is closed for it.
  MachineHarness e(test_plan());
  e.join("node-0");
  e.clear();
  e.receive("node-0", Json{{"type", "node-failed"}, {"reason", ""}});
  CHECK(e.records("protocol-error").at(0).fields.at("error") ==
        "node-failed: reason: expected 1 to 4096 bytes");
  CHECK(e.closed("node-0"));
}

// The lost node's instance restarts at once onto the spare; the instances the job-wide restart
// stopped on live nodes report later, when no spare is left: they need none, and wait no
// backoff either (bench/spare_restart.sh found them waiting the spec's 10 s).
TEST_CASE("after a node lost to a spare the other instances restart at once too") {
  MachineHarness h(test_plan());
  h.join("spare-0");
  h.join_all();
  h.clear();
  h.disconnect("node-1", "connection closed");
  h.advance(0s);
  REQUIRE(h.records("node-replaced").size() == 1);
  h.stopped("node-0", 0);
  h.stopped("node-2", 2);
  const auto restarts = h.records("restart");
  REQUIRE(restarts.size() == 3);
  for (const auto& r : restarts) {
    INFO(r.line);
    CHECK(r.line.find(" in 0s (restart 1 of ") != std::string::npos);
  }
  // Without a spare, the lost node's instance keeps the backoff: its node may come back.
  MachineHarness n(test_plan());
  n.join_all();
  n.clear();
  n.disconnect("node-1", "connection closed");
  n.stopped("node-0", 0);
  n.stopped("node-2", 2);
  int backoffs = 0;
  for (const auto& r : n.records("restart"))
    backoffs += r.line.find(" in 10s ") != std::string::npos;
  CHECK(backoffs == 1);
}

TEST_CASE("a node lost while running is replaced by a spare and everyone is assigned again") {
  MachineHarness h(test_plan());
  h.join("spare-0");
  h.join_all();
  h.clear();
  h.disconnect("node-1", "missed 5 heartbeats");
  CHECK(h.records("node-lost").at(0).line == "node node-1 (worker-1) lost: missed 5 heartbeats");
  CHECK(h.only("node-0", "stop").at("reason") ==
        "worker-1: launcher on node-1 lost: missed 5 heartbeats");
  CHECK(h.sent("node-1", "stop").empty());
  h.stopped("node-0", 0);
  h.stopped("node-2", 2);
  // A spare is ready: the restart waits no backoff (restart_backoff.h).
  CHECK(h.records("restart").at(0).line.find(" in 0s (restart 1 of ") != std::string::npos);
  h.clear();
  h.advance(0s);
  CHECK(h.records("node-replaced").at(0).line ==
        "node-1 replaced by spare spare-0 as worker-1: node node-1 lost (missed 5 heartbeats)");
  for (const char* node : {"node-0", "spare-0", "node-2"}) {
    const Json assign = h.only(node, "assign");
    CHECK(assigned_hosts(h.plan, assign).at(1).name == "spare-0");
    CHECK(h.only(node, "run-checks").at("attempt") == 1);
  }
  CHECK(h.only("spare-0", "assign").at("instance") == 1);
  h.clear();
  h.checks("node-0");
  h.checks("node-2");
  h.checks("spare-0");
  CHECK(h.only("spare-0", "start") == Json{{"type", "start"}, {"instance", 1}, {"attempt", 1}});
  CHECK(h.only("node-0", "start").at("attempt") == 1);
}

TEST_CASE("a node lost while running without a spare fails the job") {
  MachineHarness h(test_plan(pai::FaultToleranceMode::Sync, false));
  h.join_all();
  h.disconnect("node-2", "connection reset by peer");
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  // No spare: the backoff is the node's time to come back.
  CHECK(h.records("restart").at(0).line.find(" in 10s (restart 1 of ") != std::string::npos);
  h.clear();
  h.advance(9s);
  CHECK_FALSE(h.finish().has_value());
  h.advance(1s);
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->exit_code == 1);
  CHECK(finish->reason == "node node-2 lost (connection reset by peer) and no spare left");
  CHECK(h.only("node-0", "finish").at("reason") == finish->reason);
}

TEST_CASE("a node failing its checks before a restart is replaced by a spare") {
  MachineHarness h(test_plan(pai::FaultToleranceMode::Async));
  h.join("spare-0");
  h.join_all();
  h.receive("node-0", retryable_exit(0));
  h.stopped("node-0", 0);
  h.advance(10s);
  h.clear();
  h.checks("node-0", failing_checks("gpu", "GPU 3: ECC errors"));
  CHECK(h.only("node-0", "finish").at("reason") == "replaced by spare spare-0: failed check gpu");
  // The master's node changed: every node gets the new host list.
  for (const char* node : {"spare-0", "node-1", "node-2"}) {
    CHECK(assigned_hosts(h.plan, h.only(node, "assign")).at(0).address == "10.0.1.1");
  }
  CHECK(h.only("spare-0", "run-checks").at("attempt") == 1);
  h.clear();
  h.checks("spare-0");
  CHECK(h.only("spare-0", "start") == Json{{"type", "start"}, {"instance", 0}, {"attempt", 1}});
}

TEST_CASE("a job-wide hang stops the job and dumps the stacks of the instance idle longest") {
  MachineHarness h(test_plan());
  h.join_all();
  auto beat = [&](const std::string& node, int instance, std::int64_t idle_ms) {
    h.receive(node, Json{{"type", "heartbeat"},
                         {"instances", Json::array({Json{{"instance", instance},
                                                         {"idleMs", idle_ms},
                                                         {"hangInterval", 1800},
                                                         {"step", 7}}})}});
  };
  h.clear();
  beat("node-0", 0, 1799000);
  beat("node-1", 1, 1900000);
  CHECK(h.records("hang").empty());  // node-2 has not reported
  beat("node-2", 2, 1800000);
  CHECK(h.records("hang").empty());  // node-0 is a second short
  REQUIRE(h.machine.next_deadline().has_value());
  CHECK(*h.machine.next_deadline() <= h.now + 1s);
  h.advance(1s);
  const auto hang = h.records("hang");
  REQUIRE(hang.size() == 1);
  CHECK(hang[0].line ==
        "job-wide hang: no output or progress from any running instance for its hang interval; "
        "worker-1 idle longest (1901s)");
  // Every instance is asked for stacks, not only the one idle longest.
  for (const char* node : {"node-0", "node-1", "node-2"}) {
    CHECK(h.only(node, "stop").at("dumpStacks") == true);
    CHECK(h.only(node, "stop").at("signal") == SIGTERM);
  }
  h.clear();
  h.advance(10min);
  CHECK(h.records("hang").empty());
}

TEST_CASE("a launcher reporting ranks stuck exiting is a hang of its instance") {
  MachineHarness h(test_plan(pai::FaultToleranceMode::Async));
  h.join_all();
  h.clear();
  h.receive("node-2", Json{{"type", "hang"}, {"instance", 2}, {"exiting", true}, {"seconds", 600}});
  CHECK(h.records("hang").size() == 1);
  CHECK(h.only("node-2", "stop").at("dumpStacks") == true);
  CHECK(h.sent("node-0", "stop").empty());
}

TEST_CASE("reports before the job runs are protocol errors") {
  MachineHarness h(test_plan());
  h.join("node-0");
  h.clear();
  h.receive("node-0", Json{{"type", "stopped"}, {"instance", 0}});
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "stopped: type: no instance runs before the rendezvous completes");
}

}  // namespace job_run_test
