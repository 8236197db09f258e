#include "launcher/report/history_builder.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "launcher/report/journal_fixture.h"

namespace history_builder_test {

using namespace pai::launcher::report;
using namespace pai::testing;
namespace journal = pai::launcher::journal;

namespace {

// Feeds `journal` (lines as the launcher writes them) to `b` as one journal.
void feed(JobHistoryBuilder& b, bool coordinator, const std::string& folder,
          const std::string& journal) {
  b.begin_journal(coordinator, folder);
  std::istringstream in(journal);
  for (std::string l; std::getline(in, l);) {
    const auto r = entry_of(l);
    REQUIRE(r);
    b.add(*r);
  }
  b.end_journal(JournalInfo{folder + "/events.jsonl", {}});
}

std::int64_t count_of(const NodeLane& lane, MarkKind kind) {
  std::int64_t n = 0;
  for (const Mark& m : lane.marks) n += m.kind == kind ? m.count : 0;
  return n;
}

const Mark* first_of(const NodeLane& lane, MarkKind kind) {
  for (const Mark& m : lane.marks) {
    if (m.kind == kind) return &m;
  }
  return nullptr;
}

// A 2-node job with a spare, as the coordinator journals it: worker-1's rank is killed on
// node-2, both instances restart, node-2 is lost and node-3 takes worker-1, then the job fails.
std::string coordinator_journal() {
  const std::string checks = "[{\"name\":\"disk\",\"status\":\"passed\",\"summary\":\"ok\"}]";
  return line(0, "join",
              {{"node", s("node-1")},
               {"address", s("127.0.0.1")},
               {"pid", i(1)},
               {"ready", true},
               {"checks", s(checks)}}) +
         line(1, "join",
              {{"node", s("node-2")},
               {"address", s("127.0.0.2")},
               {"pid", i(2)},
               {"ready", true},
               {"checks", s(checks)}}) +
         line(2, "assignment",
              {{"instances", s("[{\"instance\":\"worker-0\",\"node\":\"node-1\"},"
                               "{\"instance\":\"worker-1\",\"node\":\"node-2\"}]")}}) +
         line(10, "start",
              {{"instance", s("worker-0")}, {"node", s("node-1")}, {"attempt", i(0)}}) +
         line(11, "start",
              {{"instance", s("worker-1")}, {"node", s("node-2")}, {"attempt", i(0)}}) +
         line(900, "diagnosis",
              {{"class", s("RankNonCommSlow")},
               {"rank", i(1)},
               {"node", s("node-2")},
               {"gpu", i(0)},
               {"evidence", s("rank 1 computes 2x longer")},
               {"severity", s("warning")}}) +
         line(1000, "exited",
              {{"instance", s("worker-1")},
               {"localRank", i(0)},
               {"status", s("{\"code\":0,\"signal\":9}")},
               {"retryable", true},
               {"reason", s("signal 9 (SIGKILL): retryable")},
               {"stopping", false}}) +
         line(1001, "stop",
              {{"instance", s("worker-0")},
               {"signal", i(15)},
               {"dumpStacks", false},
               {"reason", s("sync restart")}}) +
         line(1100, "exited",
              {{"instance", s("worker-0")},
               {"localRank", i(0)},
               {"status", s("{\"code\":0,\"signal\":15}")},
               {"retryable", true},
               {"reason", s("stopped")},
               {"stopping", true}}) +
         line(1101, "restart",
              {{"instance", s("worker-0")},
               {"attempt", i(1)},
               {"delaySeconds", i(0)},
               {"reason", s("signal 9 (SIGKILL): retryable")}}) +
         line(1102, "restart",
              {{"instance", s("worker-1")},
               {"attempt", i(1)},
               {"delaySeconds", i(0)},
               {"reason", s("signal 9 (SIGKILL): retryable")}}) +
         line(1200, "start",
              {{"instance", s("worker-0")}, {"node", s("node-1")}, {"attempt", i(1)}}) +
         line(1201, "start",
              {{"instance", s("worker-1")}, {"node", s("node-2")}, {"attempt", i(1)}}) +
         line(2000, "node-lost",
              {{"node", s("node-2")},
               {"instance", s("worker-1")},
               {"reason", s("no heartbeat for 1s")}}) +
         line(2001, "node-replaced",
              {{"instance", s("worker-1")},
               {"node", s("node-2")},
               {"spare", s("node-3")},
               {"reason", s("node node-2 lost")}}) +
         line(2100, "start",
              {{"instance", s("worker-1")}, {"node", s("node-3")}, {"attempt", i(2)}}) +
         line(2500, "hang", {{"seconds", i(30)}, {"jobWide", true}, {"instance", s("worker-0")}}) +
         line(2600, "forensics",
              {{"instance", s("worker-0")},
               {"node", s("node-1")},
               {"attempt", i(2)},
               {"folder", s("/logs/forensics/attempt-2")},
               {"culprits", s("0")},
               {"evidence", s("rank 0 is outside any collective")}}) +
         line(2700, "failure",
              {{"instance", s("worker-0")},
               {"rank", i(0)},
               {"summary", s("root cause: rank 0\nlast lines:\n| boom")}}) +
         line(2800, "job-failed",
              {{"reason", s("worker-0 hung: no output for 30s\nroot cause: rank 0")},
               {"exitCode", i(1)},
               {"localRank", i(0)},
               {"instance", s("worker-0")},
               {"status", s("{\"code\":0,\"signal\":9}")},
               {"classification",
                s("{\"matchedLine\":\"NCCL watchdog timeout\",\"reason\":"
                  "\"hang: retryable\",\"retryable\":true,\"signature\":\"hang\"}")},
               {"summary", s("root cause: rank 0\nlast lines:\n| boom")}});
}

// The journal of node-2's launcher in the same job: what the coordinator says again, and its
// checks, steps and a message only it knows.
std::string node2_journal() {
  return line(-5, "launcher-started",
              {{"job", s("train")}, {"node", s("node-2")}, {"instance", s("worker-1")}}) +
         line(-4, "check", {{"name", s("disk")}, {"status", s("passed")}, {"summary", s("ok")}}) +
         line(12, "start", {{"instance", s("worker-1")}, {"attempt", i(0)}}) +
         line(100, "checkpoint",
              {{"instance", s("worker-1")}, {"step", i(10)}, {"path", s("/c/10")}}) +
         line(600, "checkpoint",
              {{"instance", s("worker-1")}, {"step", i(60)}, {"path", s("/c/60")}}) +
         line(999, "exit",
              {{"instance", s("worker-1")},
               {"rank", i(1)},
               {"exitCode", i(137)},
               {"status", s("signal 9 (SIGKILL)")},
               {"classification", s("signal 9 (SIGKILL): retryable")}}) +
         line(1050, "restart",
              {{"instance", s("worker-1")},
               {"attempt", i(1)},
               {"backoffSeconds", i(0)},
               {"reason", s("again")}}) +
         line(1202, "start", {{"instance", s("worker-1")}, {"attempt", i(1)}}) +
         line(1300, "notify", {{"instance", s("worker-1")}, {"message", s("epoch 1")}});
}

}  // namespace

TEST_CASE("a restarted one-node job: two attempts, the failure, the restart, success") {
  JobHistoryBuilder b;
  feed(b, false, "worker-0", restarted_job_journal());
  const JobHistory h = b.finish("/logs");
  CHECK(h.job == "train");
  CHECK(h.log_dir == "/logs");
  CHECK(h.first_ms == kT0);
  CHECK(h.last_ms == kT0 + 3001);
  REQUIRE(h.lanes.size() == 1);
  const NodeLane& lane = h.lanes[0];
  CHECK(lane.node == "localhost");
  REQUIRE(lane.attempts.size() == 2);
  CHECK(lane.attempts[0].instance == "worker-0");
  CHECK(lane.attempts[0].number == 0);
  CHECK(lane.attempts[0].start_ms == kT0 + 20);
  CHECK(lane.attempts[0].end_ms == kT0 + 1001);
  CHECK(lane.attempts[0].end == AttemptEnd::Failed);
  CHECK(lane.attempts[1].number == 1);
  CHECK(lane.attempts[1].end_ms == kT0 + 3000);
  CHECK(lane.attempts[1].end == AttemptEnd::Succeeded);
  CHECK(count_of(lane, MarkKind::CheckPassed) == 1);
  CHECK(count_of(lane, MarkKind::Notify) == 1);
  CHECK(count_of(lane, MarkKind::Failure) == 1);
  CHECK(count_of(lane, MarkKind::Restart) == 1);
  REQUIRE(first_of(lane, MarkKind::Restart) != nullptr);
  CHECK(first_of(lane, MarkKind::Restart)->text ==
        "restart 1 in 0s: exit code 1: retryable (\"NCCL error\" in the log)");
  CHECK(first_of(lane, MarkKind::Failure)->text ==
        "rank 0 (worker-0): exit code 1: exit code 1: retryable (\"NCCL error\" in the log) | "
        "NCCL error: "
        "unhandled system error");
  CHECK(h.attempts == 2);
  CHECK(h.restarts == 1);
  CHECK(h.failures == 1);
  CHECK(h.root_cause.outcome == JobOutcome::Succeeded);
  CHECK(h.root_cause.exit_code == 0);
  CHECK(h.root_cause.headline == "the job succeeded after 1 restart");
  CHECK(
      h.root_cause.details ==
      std::vector<std::string>{"restarted 1x: exit code 1: retryable (\"NCCL error\" in the log)"});
  REQUIRE(h.key_events.size() == 2);
  CHECK(h.key_events[0].what == "failure");
  CHECK(h.key_events[1].what == "restart");
}

TEST_CASE("with the coordinator's journal, its decisions count once and nodes add their own") {
  JobHistoryBuilder b;
  feed(b, true, "coordinator", coordinator_journal());
  feed(b, false, "worker-1", node2_journal());
  const JobHistory h = b.finish("/logs");
  CHECK(h.job == "train");
  REQUIRE(h.lanes.size() == 3);
  CHECK(h.lanes[0].node == "node-1");
  CHECK(h.lanes[1].node == "node-2");
  CHECK(h.lanes[2].node == "node-3");
  CHECK(h.restarts == 2);      // the node's own restart record is not counted again
  CHECK(h.job_restarts == 1);  // one decision restarted both instances
  CHECK(h.failures == 1);  // nor its exit record; a stopping exit is no failure
  CHECK(h.hangs == 1);
  CHECK(h.verdicts == 1);
  CHECK(h.attempts == 5);
  const NodeLane& n2 = h.lanes[1];
  REQUIRE(n2.attempts.size() == 2);
  CHECK(n2.attempts[0].end == AttemptEnd::Failed);
  CHECK(n2.attempts[0].start_ms == kT0 + 11);  // the earlier of the two journals' starts
  CHECK(n2.attempts[1].end == AttemptEnd::Stopped);
  CHECK(count_of(n2, MarkKind::Failure) == 1);
  CHECK(count_of(n2, MarkKind::Restart) == 1);
  CHECK(count_of(n2, MarkKind::Diagnosis) == 1);
  CHECK(count_of(n2, MarkKind::NodeChange) == 2);   // lost, replaced
  CHECK(count_of(n2, MarkKind::CheckPassed) == 1);  // the coordinator's join, once
  CHECK(count_of(n2, MarkKind::Checkpoint) == 2);
  CHECK(count_of(n2, MarkKind::Notify) == 1);
  const NodeLane& n3 = h.lanes[2];
  REQUIRE(n3.attempts.size() == 1);
  CHECK(n3.attempts[0].instance == "worker-1");
  CHECK(n3.attempts[0].number == 2);
  CHECK(count_of(n3, MarkKind::NodeChange) == 1);  // took worker-1
  const NodeLane& n1 = h.lanes[0];
  CHECK(count_of(n1, MarkKind::Hang) == 1);
  CHECK(count_of(n1, MarkKind::Forensics) == 1);
  CHECK(n1.attempts.back().end == AttemptEnd::Hung);

  const RootCause& rc = h.root_cause;
  CHECK(rc.outcome == JobOutcome::Failed);
  CHECK(rc.exit_code == 1);
  CHECK(rc.headline == "worker-0 hung: no output for 30s");
  CHECK(rc.summary == "root cause: rank 0\nlast lines:\n| boom");
  CHECK(rc.details == std::vector<std::string>{
                          "instance: worker-0",
                          "exit status: signal 9",
                          "classification: hang: retryable",
                          "matched line: NCCL watchdog timeout",
                          "diagnosis: RankNonCommSlow (warning): rank 1 computes 2x longer",
                          "hang forensics: rank 0 is outside any collective",
                          "restarted 1x: signal 9 (SIGKILL): retryable",
                      });
  // Steps from the node's checkpoints: 50 steps in 0.5 s.
  REQUIRE(h.step_samples == 2);
  CHECK(h.step_rate.back().steps_per_second == Approx(100.0));
}

TEST_CASE("restarts count the job's decisions the same in the headline, details and header") {
  // Twice a sync restart of 3 instances (the same attempt and reason), then one instance
  // restarted alone for another reason.
  std::string journal;
  std::int64_t t = 0;
  for (int attempt = 1; attempt <= 2; ++attempt) {
    for (const char* instance : {"worker-0", "worker-1", "worker-2"}) {
      journal += line(++t, "restart",
                      {{"instance", s(instance)},
                       {"attempt", i(attempt)},
                       {"delaySeconds", i(0)},
                       {"reason", s("worker-2 local rank 1: signal 9 (SIGKILL): retryable")}});
    }
  }
  journal += line(++t, "restart",
                  {{"instance", s("worker-0")},
                   {"attempt", i(3)},
                   {"delaySeconds", i(0)},
                   {"reason", s("worker-0 local rank 0: exit code 1: retryable")}});
  journal += line(++t, "job-succeeded", {{"job", s("train")}});
  JobHistoryBuilder b;
  feed(b, true, "coordinator", journal);
  const JobHistory h = b.finish("/logs");
  CHECK(h.restarts == 7);
  CHECK(h.job_restarts == 3);
  CHECK(h.root_cause.headline == "the job succeeded after 3 restarts");
  CHECK(h.root_cause.details ==
        std::vector<std::string>{
            "restarted 2x: worker-2 local rank 1: signal 9 (SIGKILL): retryable",
            "restarted 1x: worker-0 local rank 0: exit code 1: retryable",
        });
}

TEST_CASE("a journal without an end is a job still running: its attempt runs to the last record") {
  const std::string journal = restarted_job_journal();
  // Up to the second start: the job is in its attempt 1.
  const std::string cut = journal.substr(0, journal.find("\"exit code 0\""));
  const std::string running = cut.substr(0, cut.rfind('\n') + 1);
  JobHistoryBuilder b;
  feed(b, false, "worker-0",
       running + line(2000, "notify", {{"instance", s("worker-0")}, {"message", s("step 7")}}));
  const JobHistory h = b.finish("/logs");
  CHECK(h.root_cause.outcome == JobOutcome::Unfinished);
  CHECK(h.root_cause.exit_code == -1);
  CHECK(h.root_cause.headline ==
        "the journal has no end: the job is still running, or its launcher was killed");
  CHECK(h.root_cause.details.front() ==
        "latest event: restart on worker-0: restart 1 in 0s: exit code 1: retryable (\"NCCL "
        "error\" in the log)");
  REQUIRE(h.lanes.size() == 1);
  REQUIRE(h.lanes[0].attempts.size() == 2);
  CHECK(h.lanes[0].attempts[1].end == AttemptEnd::Running);
  CHECK(h.lanes[0].attempts[1].end_ms == kT0 + 2000);
}

TEST_CASE("a restart to test the links of a hang's suspects is a key event") {
  JobHistoryBuilder b;
  b.begin_journal(true, "coordinator");
  const auto r = entry_of(
      "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"diagnosis-restart\","
      "\"class\":\"RankCommHang\",\"suspects\":[\"node-2\",\"node-3\"]}");
  REQUIRE(r);
  b.add(*r);
  b.end_journal(JournalInfo{"coordinator/events.jsonl", {}});
  const JobHistory h = b.finish("/logs");
  REQUIRE(h.key_events.size() == 1);
  CHECK(h.key_events[0].what == "diagnosis-restart");
  CHECK(h.key_events[0].text == "restarted to test the links of node-2, node-3");
}

TEST_CASE("NIC verdicts are marks on their node - a critical one a key event too") {
  const auto nic = [](std::int64_t ms, const char* problem, const char* severity) {
    return line(ms, "nic",
                {{"node", s("node-1")},
                 {"port", s("mlx5_0/1")},
                 {"netdev", s("eth2")},
                 {"problem", s(problem)},
                 {"counter", s("hw_counters/np_cnp_sent")},
                 {"rate", i(9000)},
                 {"evidence", s("mlx5_0/1 (eth2): ...")},
                 {"severity", s(severity)}});
  };
  JobHistoryBuilder b;
  feed(b, true, "coordinator",
       line(0, "start", {{"instance", s("worker-0")}, {"node", s("node-1")}, {"attempt", i(0)}}) +
           nic(100, "congestion", "warning") + nic(200, "flapping", "critical"));
  const JobHistory h = b.finish("/logs");
  REQUIRE(h.lanes.size() == 1);
  CHECK(count_of(h.lanes[0], MarkKind::Diagnosis) == 2);
  CHECK(first_of(h.lanes[0], MarkKind::Diagnosis)->text ==
        "nic (warning): mlx5_0/1 congestion: mlx5_0/1 (eth2): ...");
  REQUIRE(h.key_events.size() == 1);
  CHECK(h.key_events[0].what == "nic");
  CHECK(h.key_events[0].text == "nic (critical): mlx5_0/1 flapping: mlx5_0/1 (eth2): ...");
}

TEST_CASE("a cancelled job says who cancelled it") {
  JobHistoryBuilder b;
  feed(b, true, "coordinator",
       line(0, "start", {{"instance", s("worker-0")}, {"node", s("node-1")}, {"attempt", i(0)}}) +
           line(50, "job-cancelled",
                {{"by", s("the coordinator: time limit 1h (timeLimit) reached")},
                 {"exitCode", i(143)}}));
  const JobHistory h = b.finish("/logs");
  CHECK(h.root_cause.outcome == JobOutcome::Cancelled);
  CHECK(h.root_cause.exit_code == 143);
  CHECK(h.root_cause.headline == "cancelled by the coordinator: time limit 1h (timeLimit) reached");
  REQUIRE(h.lanes.size() == 1);
  CHECK(h.lanes[0].attempts[0].end == AttemptEnd::Cancelled);
}

TEST_CASE("a flood of records is merged into a bounded number of marks that still count them") {
  JobHistoryBuilder b;
  b.begin_journal(false, "worker-0");
  b.add(journal::Entry{kT0, journal::LauncherStarted{.node = "n", .instance = "worker-0"}});
  // Records built directly (parsing is the journal reader's test): 10,000 s of them, more
  // than kMaxMarksPerLane marks and kMaxStepBuckets one-second buckets. A notify has no step
  // (format 1's fixture gave it one, which the reader never read): the checkpoints' steps
  // come every 2 s.
  const int n = 10'000;
  for (int k = 0; k < n; ++k) {
    const std::int64_t ms = kT0 + k * 1000;
    if (k % 2) {
      b.add(journal::Entry{ms, journal::Notify{.instance = "worker-0", .message = "m"}});
    } else {
      b.add(
          journal::Entry{ms, journal::Checkpoint{.instance = "worker-0", .step = k, .path = "m"}});
    }
  }
  const JobHistory h = b.finish("/logs");
  REQUIRE(h.lanes.size() == 1);
  CHECK(h.lanes[0].marks.size() <= kMaxMarksPerLane);
  CHECK(count_of(h.lanes[0], MarkKind::Notify) == n / 2);
  CHECK(count_of(h.lanes[0], MarkKind::Checkpoint) == n / 2);
  CHECK(h.step_rate.size() <= kMaxStepBuckets);
  CHECK(h.step_samples == n / 2);
  CHECK(h.step_rate.size() > kMaxStepBuckets / 4);
  CHECK(h.step_rate[h.step_rate.size() / 2].steps_per_second == Approx(1.0));
}

}  // namespace history_builder_test
