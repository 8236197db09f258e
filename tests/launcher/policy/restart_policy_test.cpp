#include "launcher/policy/restart_policy.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <vector>

namespace restart_policy_test {

using namespace pai::launcher;

namespace {

pai::FaultTolerance tolerance(int max_restarts = 3, int max_same_error = 10) {
  pai::FaultTolerance ft;
  ft.max_restarts = max_restarts;
  ft.max_same_error = max_same_error;
  ft.backoff_seconds = 1;
  return ft;
}

// One instance's failure restarts only that instance.
pai::FaultTolerance asynchronous(int max_restarts = 3) {
  pai::FaultTolerance ft = tolerance(max_restarts);
  ft.mode = pai::FaultToleranceMode::Async;
  return ft;
}

GovernedInstance worker(int index, int nproc = 2) {
  return GovernedInstance{"worker", index, nproc, pai::Completion{}};
}

Classification retryable(std::string signature = "signal:9") {
  return Classification{true, "signal 9 (SIGKILL): retryable (killed from outside)", "", "",
                        std::move(signature)};
}

Classification fatal() {
  return Classification{false, "exit code 1: not retryable (no retryable error in the log)", "", "",
                        "exit:1"};
}

ProcessExited failed(int instance, int rank, Classification c, ExitStatus s = {0, SIGKILL}) {
  return ProcessExited{instance, rank, s, std::move(c)};
}

ProcessExited ok(int instance, int rank) { return ProcessExited{instance, rank, {}, {}}; }

template <class T>
T only(const std::vector<PolicyAction>& actions) {
  REQUIRE(actions.size() == 1);
  REQUIRE(std::holds_alternative<T>(actions[0]));
  return std::get<T>(actions[0]);
}

// `actions`, every one a StopInstance.
std::vector<StopInstance> stops(const std::vector<PolicyAction>& actions) {
  std::vector<StopInstance> out;
  for (const PolicyAction& action : actions) {
    REQUIRE(std::holds_alternative<StopInstance>(action));
    out.push_back(std::get<StopInstance>(action));
  }
  return out;
}

// Drives one retryable failure of instance 0 (a SIGKILL) through stop, backoff and restart.
void restart_once(RestartPolicyMachine& m, int expected_count, std::int64_t expected_delay) {
  const auto stop = only<StopInstance>(m.on(failed(0, 1, retryable())));
  CHECK(stop.instance == 0);
  CHECK(stop.signal == SIGTERM);
  CHECK(m.on(ProcessExited{0, 0, {0, SIGTERM}, {}}).empty());
  const auto sched = only<ScheduleRestart>(m.on(InstanceStopped{0}));
  CHECK(sched.delay_seconds == expected_delay);
  CHECK(sched.restart_count == expected_count);
  const auto start = only<StartInstance>(m.on(BackoffElapsed{0}));
  CHECK(start.restart_count == expected_count);
  CHECK(m.restart_count(0) == expected_count);
}

}  // namespace

TEST_CASE("all ranks succeeding completes the job") {
  RestartPolicyMachine m(tolerance(), {worker(0)}, 1);
  const auto start = m.start();
  REQUIRE(start.size() == 1);
  CHECK(std::get<StartInstance>(start[0]).restart_count == 0);
  CHECK(m.on(ok(0, 0)).empty());
  CHECK(m.on(ok(0, 1)).empty());
  only<CompleteJob>(m.on(InstanceStopped{0}));
  CHECK(m.finished());
  CHECK(m.on(InstanceStopped{0}).empty());
}

TEST_CASE("a retryable failure stops the instance - backs off and restarts it") {
  RestartPolicyMachine m(tolerance(), {worker(0)}, 1);
  m.start();
  restart_once(m, 1, 0);
  m.on(ok(0, 0));
  m.on(ok(0, 1));
  only<CompleteJob>(m.on(InstanceStopped{0}));
}

TEST_CASE("a one-off failure restarts at once - its repeats and other failures back off, growing") {
  auto ft = tolerance(10);
  ft.backoff_seconds = 2;
  RestartPolicyMachine m(ft, {worker(0)}, 1);
  m.start();
  // A rank killed with SIGKILL: at once, then the backoff, doubling with each repeat.
  for (std::int64_t expected : {0, 2, 4}) {
    only<StopInstance>(m.on(failed(0, 0, retryable())));
    m.on(ProcessExited{0, 1, {0, SIGTERM}, {}});
    const auto sched = only<ScheduleRestart>(m.on(InstanceStopped{0}));
    CHECK(sched.delay_seconds == expected);
    only<StartInstance>(m.on(BackoffElapsed{0}));
  }
  // Another failure (a pattern in the log) backs off from its first time.
  only<StopInstance>(m.on(failed(0, 0, retryable("pattern:NCCL error"))));
  m.on(ProcessExited{0, 1, {0, SIGTERM}, {}});
  CHECK(only<ScheduleRestart>(m.on(InstanceStopped{0})).delay_seconds == 2);
}

TEST_CASE("a non-retryable failure stops everything and fails with the root cause") {
  RestartPolicyMachine m(tolerance(), {worker(0)}, 1);
  m.start();
  const auto stop = only<StopInstance>(m.on(failed(0, 1, fatal(), {1, 0})));
  CHECK(stop.reason ==
        "the job failed: rank 1 (worker-0 local rank 1): exit code 1: not retryable (no retryable "
        "error "
        "in the log)");
  m.on(ProcessExited{0, 0, {0, SIGTERM}, {}});
  const auto fail = only<FailJob>(m.on(InstanceStopped{0}));
  CHECK(fail.exit_code == 1);
  CHECK(fail.instance == 0);
  CHECK(fail.local_rank == 1);
  CHECK(fail.status.code == 1);
  CHECK(
      fail.reason ==
      "rank 1 (worker-0 local rank 1): exit code 1: not retryable (no retryable error in the log)");
}

TEST_CASE("exec failures fail the job with 126 or 127") {
  RestartPolicyMachine m(tolerance(), {worker(0, 1)}, 1);
  m.start();
  m.on(failed(
      0, 0,
      Classification{false, "exit code 127 (command not found): not retryable", "", "", "exit:127"},
      {127, 0}));
  CHECK(only<FailJob>(m.on(InstanceStopped{0})).exit_code == 127);
}

TEST_CASE("maxRestarts exhausted fails the job") {
  RestartPolicyMachine m(tolerance(2), {worker(0)}, 1);
  m.start();
  restart_once(m, 1, 0);
  restart_once(m, 2, 1);
  m.on(failed(0, 0, retryable()));
  const auto fail = only<FailJob>(m.on(InstanceStopped{0}));
  CHECK(fail.reason ==
        "rank 0 (worker-0 local rank 0): signal 9 (SIGKILL): retryable (killed from outside), but "
        "maxRestarts (2) is exhausted");
  CHECK(fail.exit_code == 1);
}

TEST_CASE("maxSameError counts failures with the same signature") {
  RestartPolicyMachine m(tolerance(10, 2), {worker(0)}, 1);
  m.start();
  restart_once(m, 1, 0);
  m.on(failed(0, 1, retryable()));
  const auto fail = only<FailJob>(m.on(InstanceStopped{0}));
  CHECK(fail.reason ==
        "rank 1 (worker-0 local rank 1): signal 9 (SIGKILL): retryable (killed from outside), but "
        "the same "
        "error occurred 2 times (maxSameError 2)");
}

TEST_CASE("different errors do not count towards maxSameError") {
  RestartPolicyMachine m(tolerance(10, 2), {worker(0)}, 1);
  m.start();
  restart_once(m, 1, 0);
  only<StopInstance>(m.on(failed(0, 1, retryable("pattern:NCCL error"))));
  CHECK(std::holds_alternative<ScheduleRestart>(m.on(InstanceStopped{0}).at(0)));
}

TEST_CASE("restarts disabled or policy never fail at the first failure") {
  auto ft = tolerance();
  ft.restart_enabled = false;
  RestartPolicyMachine m(ft, {worker(0)}, 1);
  m.start();
  m.on(failed(0, 0, retryable()));
  CHECK(only<FailJob>(m.on(InstanceStopped{0})).reason ==
        "rank 0 (worker-0 local rank 0): signal 9 (SIGKILL): retryable (killed from outside), but "
        "restarts are disabled");
}

TEST_CASE("sync mode restarts every instance - async only the failed one") {
  {
    RestartPolicyMachine m(tolerance(), {worker(0), worker(1)}, 2);
    m.start();
    auto actions = m.on(failed(1, 0, retryable()));
    REQUIRE(actions.size() == 2);
    CHECK(std::get<StopInstance>(actions[0]).instance == 0);
    CHECK(std::get<StopInstance>(actions[1]).instance == 1);
  }
  {
    auto ft = tolerance();
    ft.mode = pai::FaultToleranceMode::Async;
    RestartPolicyMachine m(ft, {worker(0), worker(1)}, 2);
    m.start();
    CHECK(only<StopInstance>(m.on(failed(1, 0, retryable()))).instance == 1);
    CHECK(only<ScheduleRestart>(m.on(InstanceStopped{1})).instance == 1);
    CHECK(m.restart_count(0) == 0);
    CHECK(m.restart_count(1) == 1);
  }
}

TEST_CASE("a hang stops the instance with stack dumps and restarts it") {
  RestartPolicyMachine m(tolerance(), {worker(0)}, 1);
  m.start();
  const auto& stop = only<StopInstance>(
      m.on(HangDetected{0, classify_hang(pai::RestartPolicy::ExitCode, 2, false)}));
  CHECK(stop.dump_stacks);
  CHECK(stop.reason == "worker-0: hang: no output and no progress for 2s: retryable");
  CHECK(only<ScheduleRestart>(m.on(InstanceStopped{0})).restart_count == 1);
}

TEST_CASE("a hang in a sync job asks every instance it stops for stacks - a failure asks none") {
  RestartPolicyMachine m(tolerance(), {worker(0), worker(1), worker(2)}, 3);
  m.start();
  const auto hang =
      stops(m.on(HangDetected{1, classify_hang(pai::RestartPolicy::ExitCode, 2, false)}));
  REQUIRE(hang.size() == 3);
  for (const StopInstance& stop : hang) CHECK(stop.dump_stacks);

  RestartPolicyMachine failure(tolerance(), {worker(0), worker(1)}, 2);
  failure.start();
  const auto after_failure = stops(failure.on(failed(1, 0, retryable())));
  REQUIRE(after_failure.size() == 2);
  for (const StopInstance& stop : after_failure) CHECK_FALSE(stop.dump_stacks);
}

TEST_CASE("a hang that fails the job still asks every running instance for stacks") {
  RestartPolicyMachine m(tolerance(0), {worker(0), worker(1)}, 2);
  m.start();
  const auto failed_by_hang =
      stops(m.on(HangDetected{0, classify_hang(pai::RestartPolicy::ExitCode, 2, false)}));
  REQUIRE(failed_by_hang.size() == 2);
  for (const StopInstance& stop : failed_by_hang) {
    CHECK(stop.dump_stacks);
    CHECK(stop.reason.rfind("the job failed: worker-0: hang", 0) == 0);
  }
}

TEST_CASE("a stop request forwards the signal and cancels with 128+N - a second one kills") {
  RestartPolicyMachine m(tolerance(), {worker(0)}, 1);
  m.start();
  const auto stop = only<StopInstance>(m.on(StopRequested{SIGTERM}));
  CHECK(stop.signal == SIGTERM);
  CHECK(stop.reason == "pai-launch received SIGTERM");
  CHECK(only<StopInstance>(m.on(StopRequested{SIGINT})).signal == SIGKILL);
  const auto cancel = only<CancelJob>(m.on(InstanceStopped{0}));
  CHECK(cancel.exit_code == 128 + SIGTERM);
  CHECK(cancel.reason == "pai-launch received SIGTERM");
}

TEST_CASE("a stop request during backoff cancels the restart") {
  RestartPolicyMachine m(tolerance(), {worker(0)}, 1);
  m.start();
  m.on(failed(0, 0, retryable()));
  only<ScheduleRestart>(m.on(InstanceStopped{0}));
  CHECK(only<CancelJob>(m.on(StopRequested{SIGINT})).exit_code == 128 + SIGINT);
  CHECK(m.on(BackoffElapsed{0}).empty());
}

TEST_CASE("minSucceeded lets a role complete before all its instances finish") {
  GovernedInstance a{"ps", 0, 1, pai::Completion{1, -1}};
  GovernedInstance b{"ps", 1, 1, pai::Completion{1, -1}};
  RestartPolicyMachine m(tolerance(), {a, b}, 2);
  m.start();
  m.on(ok(0, 0));
  const auto stop = only<StopInstance>(m.on(InstanceStopped{0}));
  CHECK(stop.instance == 1);
  CHECK(stop.reason == "the job completed");
  only<CompleteJob>(m.on(InstanceStopped{1}));
}

TEST_CASE("minFailed -1 tolerates a failed instance but all must still succeed") {
  GovernedInstance a{"worker", 0, 1, pai::Completion{-1, -1}};
  GovernedInstance b{"worker", 1, 1, pai::Completion{-1, -1}};
  RestartPolicyMachine m(tolerance(), {a, b}, 2);
  m.start();
  CHECK(only<StopInstance>(m.on(failed(0, 0, fatal(), {1, 0}))).instance == 0);
  CHECK(m.on(InstanceStopped{0}).empty());
  m.on(ok(1, 0));
  const auto fail = only<FailJob>(m.on(InstanceStopped{1}));
  CHECK(fail.reason ==
        "role worker: 1 of 2 required instances succeeded; last failure: rank 0 (worker-0 local "
        "rank 0): "
        "exit code 1: not retryable (no retryable error in the log)");
}

TEST_CASE("maxToleratedFailureRate lets the job finish without the failed instances") {
  auto ft = tolerance();
  ft.max_tolerated_failure_rate = 0.5;
  RestartPolicyMachine m(ft, {worker(0, 1), worker(1, 1)}, 2);
  m.start();
  only<StopInstance>(m.on(failed(0, 0, fatal(), {1, 0})));
  CHECK(m.on(InstanceStopped{0}).empty());
  m.on(ok(1, 0));
  only<CompleteJob>(m.on(InstanceStopped{1}));
}


TEST_CASE("a snapshot holds the restart counts, the outcomes and the same-error counts") {
  RestartPolicyMachine m(asynchronous(), {worker(0), worker(1, 1)}, 2);
  m.start();
  restart_once(m, 1, 0);
  m.on(ok(1, 0));
  m.on(InstanceStopped{1});
  const PolicySnapshot snapshot = m.snapshot();
  CHECK(snapshot.restart_counts == std::vector<int>{1, 0});
  CHECK(snapshot.outcomes == std::vector<PolicySnapshot::Outcome>{
                                 PolicySnapshot::Outcome::Running,
                                 PolicySnapshot::Outcome::Succeeded});
  CHECK(snapshot.same_error.at("signal:9") == 1);
}

TEST_CASE("a taken-over job starts at each instance's next attempt, its ended ones left ended") {
  RestartPolicyMachine lost(asynchronous(), {worker(0), worker(1, 1), worker(2, 1)}, 3);
  lost.start();
  restart_once(lost, 1, 0);
  lost.on(ok(2, 0));
  lost.on(InstanceStopped{2});

  RestartPolicyMachine m(asynchronous(), {worker(0), worker(1, 1), worker(2, 1)}, 3);
  const auto actions = m.resume(lost.snapshot(), "the coordinator was lost");
  REQUIRE(actions.size() == 2);
  CHECK(std::get<StartInstance>(actions[0]).instance == 0);
  CHECK(std::get<StartInstance>(actions[0]).restart_count == 2);
  CHECK(std::get<StartInstance>(actions[1]).instance == 1);
  CHECK(std::get<StartInstance>(actions[1]).restart_count == 1);
  CHECK(m.restart_count(0) == 2);
  // The same-error count goes on: a second SIGKILL of worker-0 is its second.
  CHECK(m.snapshot().same_error.at("signal:9") == 1);
  // The instance that had succeeded counts: the others' success completes the job.
  m.on(ok(0, 0));
  m.on(ok(0, 1));
  CHECK(m.on(InstanceStopped{0}).empty());
  m.on(ok(1, 0));
  only<CompleteJob>(m.on(InstanceStopped{1}));
}

TEST_CASE("a takeover with an instance's restarts used up fails the job") {
  RestartPolicyMachine lost(asynchronous(1), {worker(0), worker(1, 1)}, 2);
  lost.start();
  restart_once(lost, 1, 0);
  RestartPolicyMachine m(asynchronous(1), {worker(0), worker(1, 1)}, 2);
  const auto failure = only<FailJob>(m.resume(lost.snapshot(), "the coordinator was lost"));
  CHECK(failure.reason == "worker-0: the coordinator was lost, but maxRestarts (1) is exhausted");
  CHECK(m.finished());
}

TEST_CASE("a takeover with restarts disabled fails the job") {
  pai::FaultTolerance ft = tolerance();
  ft.restart_enabled = false;
  RestartPolicyMachine m(ft, {worker(0, 1)}, 1);
  const auto failure = only<FailJob>(m.resume(PolicySnapshot{}, "the coordinator was lost"));
  CHECK(failure.reason == "the coordinator was lost, but restarts are disabled");
}

TEST_CASE("a takeover after every instance ended completes the job at once") {
  PolicySnapshot past{{0, 2}, {PolicySnapshot::Outcome::Succeeded, PolicySnapshot::Outcome::Succeeded}, {}};
  RestartPolicyMachine m(tolerance(), {worker(0, 1), worker(1, 1)}, 2);
  only<CompleteJob>(m.resume(past, "the coordinator was lost"));
}

}  // namespace restart_policy_test
