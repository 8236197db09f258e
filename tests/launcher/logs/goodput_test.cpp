#include "launcher/logs/goodput.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace goodput_test {

using namespace pai::launcher;
using goodput::Account;
using goodput::Cause;

namespace {

constexpr std::int64_t kT0 = 1767323045000;  // 2026-01-02T03:04:05Z
constexpr std::int64_t kS = 1000;            // one second in milliseconds

using Journal = std::vector<journal::Entry>;

// One journal: its folder and records, times in milliseconds from kT0.
struct Folder {
  std::string name;
  Journal records;
  std::int64_t skipped = 0;
  Folder& at(std::int64_t ms, journal::Event event) {
    records.push_back({kT0 + ms, std::move(event)});
    return *this;
  }
};

// The account of `folders`: of an ended job, or with `live_now_ms` of one still running then.
Account account(const std::vector<Folder>& folders,
                std::optional<std::int64_t> live_now_ms = std::nullopt) {
  goodput::Accountant a;
  for (const Folder& f : folders) {
    a.begin_journal(f.name == "coordinator", f.name);
    for (const journal::Entry& e : f.records) a.add(e);
    a.end_journal(f.skipped);
  }
  return live_now_ms ? a.finish_live(kT0 + *live_now_ms) : a.finish();
}

// The invariant of every account: per attempt and for the job, the causes sum to the
// rank-seconds of the wall time (within 1%), and the attempts to the job.
void check_sums(const Account& a) {
  const double expected = static_cast<double>(a.rank_slots) * a.wall_seconds();
  CHECK(std::abs(a.causes.total() - expected) <= 0.01 * expected + 1e-9);
  double attempts = 0;
  for (const goodput::AttemptAccount& at : a.attempts) attempts += at.causes.total();
  CHECK(std::abs(attempts - a.causes.total()) <= 0.01 * a.causes.total() + 1e-9);
  for (double s : a.causes.seconds) CHECK(s >= 0);
}

journal::LauncherStarted launcher_started(std::int64_t processes) {
  journal::LauncherStarted l;
  l.job = "llm";
  l.node = "node-1";
  l.instance = "worker-0";
  l.processes = processes;
  return l;
}

journal::Start start(int attempt, std::int64_t processes) {
  journal::Start s;
  s.instance = "worker-0";
  s.attempt = attempt;
  s.processes = processes;
  return s;
}

journal::ProcessStarted process(std::int64_t rank) {
  journal::ProcessStarted p;
  p.instance = "worker-0";
  p.rank = rank;
  return p;
}

journal::Steps steps(std::int64_t rank, std::int64_t step) {
  journal::Steps s;
  s.instance = "worker-0";
  s.rank = rank;
  s.step = step;
  return s;
}

journal::Exit exit_of(std::int64_t rank, int code) {
  journal::Exit e;
  e.instance = "worker-0";
  e.rank = rank;
  e.exit_code = code;
  return e;
}

journal::Restart restart(int attempt, std::int64_t backoff) {
  journal::Restart r;
  r.instance = "worker-0";
  r.attempt = attempt;
  r.backoff_seconds = backoff;
  r.reason = "rank 1 failed";
  return r;
}

journal::Stop stop() {
  journal::Stop s;
  s.instance = "worker-0";
  s.signal = 15;
  s.reason = "rank 1 failed";
  return s;
}

// A one-node job of 2 ranks: checks from 0 to 2 s, processes from 3 s, the first step at
// 10 s, steps every 10 s to step 100 at 100 s, exits at 101 s, the end at 102 s.
Folder clean_run() {
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(2)).at(2 * kS, start(0, 2));
  f.at(3 * kS, process(0)).at(3 * kS, process(1));
  for (std::int64_t t = 10; t <= 100; t += 10) {
    f.at(t * kS, steps(0, t)).at(t * kS, steps(1, t));
  }
  f.at(101 * kS, exit_of(0, 0)).at(101 * kS, exit_of(1, 0));
  f.at(102 * kS, journal::JobSucceeded{}).at(102 * kS, journal::Finish{0, "the job succeeded"});
  return f;
}

}  // namespace

TEST_CASE("a clean run: every rank-second has its cause, and the ETTR is productive over all") {
  const Account a = account({clean_run()});
  CHECK(a.rank_slots == 2);
  CHECK(a.wall_seconds() == Approx(102));
  CHECK(a.causes[Cause::RendezvousChecks] == Approx(2 * 2));
  CHECK(a.causes[Cause::StartUp] == Approx(2 * 1));
  CHECK(a.causes[Cause::FrameworkInit] == Approx(2 * 7));
  CHECK(a.causes[Cause::Productive] == Approx(2 * 91));
  CHECK(a.causes[Cause::StopTeardown] == Approx(2 * 1));
  CHECK(a.causes[Cause::Unknown] == 0);
  CHECK(a.causes[Cause::RunningNoStepData] == 0);
  CHECK(a.ettr() == Approx(91.0 / 102));
  CHECK(a.step_data);
  REQUIRE(a.attempts.size() == 1);
  CHECK(a.attempts[0].causes.total() == Approx(2 * 102));
  check_sums(a);
  // No note of missing steps; the straggler note is always there.
  REQUIRE(a.notes.size() == 1);
  CHECK(a.notes[0].find("straggler loss is not measured") == 0);
}

TEST_CASE("a kill -9 and a restart: teardown, backoff, checks and the rollback are their own") {
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(2)).at(0, start(0, 2)).at(0, process(0)).at(0, process(1));
  f.at(10 * kS, steps(0, 10)).at(10 * kS, steps(1, 10));
  journal::CheckpointStarted saving;
  saving.step = 20;
  f.at(20 * kS, steps(0, 20)).at(20 * kS, steps(1, 20)).at(20 * kS, saving);
  f.at(25 * kS, journal::Checkpoint{"worker-0", 20, "/ckpt/20"});
  f.at(30 * kS, steps(0, 30)).at(30 * kS, steps(1, 30));
  f.at(40 * kS, steps(0, 40)).at(40 * kS, steps(1, 40));
  // Rank 1 is killed with SIGKILL at 41 s; rank 0 is stopped and exits at 42 s.
  f.at(41 * kS, exit_of(1, 137)).at(41 * kS, stop()).at(42 * kS, exit_of(0, 143));
  // 5 s of backoff, checks to 50 s, attempt 1 resumes from step 20.
  f.at(43 * kS, restart(1, 5)).at(50 * kS, start(1, 2)).at(51 * kS, process(0));
  f.at(51 * kS, process(1));
  f.at(60 * kS, steps(0, 21)).at(60 * kS, steps(1, 21));
  f.at(70 * kS, steps(0, 31)).at(70 * kS, steps(1, 31));
  f.at(80 * kS, steps(0, 49)).at(80 * kS, steps(1, 49));  // passes step 40 at 75 s
  f.at(90 * kS, steps(0, 61)).at(90 * kS, steps(1, 61));
  f.at(90 * kS, exit_of(0, 0)).at(90 * kS, exit_of(1, 0)).at(90 * kS, journal::JobSucceeded{});
  const Account a = account({f});
  CHECK(a.causes[Cause::CheckpointStall] == Approx(2 * 5));
  CHECK(a.causes[Cause::StopTeardown] == Approx(2 + 2));  // both ranks from 41 s to 43 s
  CHECK(a.causes[Cause::RestartBackoff] == Approx(2 * 5));
  CHECK(a.causes[Cause::RendezvousChecks] == Approx(2 * 2));
  CHECK(a.causes[Cause::StartUp] == Approx(2 * 1));
  CHECK(a.causes[Cause::FrameworkInit] == Approx(2 * 10 + 2 * 9));
  CHECK(a.causes[Cause::Rollback] == Approx(2 * 15));
  // Attempt 0: 10-41 minus the 5 s save (rank 0 to 41 s too: the stop); attempt 1: 75-90.
  CHECK(a.causes[Cause::Productive] == Approx(2 * (31 - 5) + 2 * 15));
  REQUIRE(a.attempts.size() == 2);
  CHECK(a.attempts[0].causes.total() == Approx(2 * 50));
  CHECK(a.attempts[1].causes.total() == Approx(2 * 40));
  CHECK(a.attempts[1].causes[Cause::Rollback] == Approx(2 * 15));
  check_sums(a);
}

TEST_CASE("the saves that stalled the ranks are counted with their wall time - one cut off is not") {
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(2)).at(0, start(0, 2)).at(0, process(0)).at(0, process(1));
  f.at(10 * kS, steps(0, 10)).at(10 * kS, steps(1, 10));
  journal::CheckpointStarted saving;
  saving.step = 10;
  f.at(10 * kS, saving).at(14 * kS, journal::Checkpoint{"worker-0", 10, "/ckpt/10"});
  // A failed save stalled the ranks too: it cost what it took.
  saving.step = 20;
  f.at(20 * kS, steps(0, 20)).at(20 * kS, saving);
  f.at(22 * kS, journal::CheckpointFailed{"worker-0", 20, "disk full"});
  // A save cut off by a stop, its end journaled after the next attempt's start: no measure.
  saving.step = 30;
  f.at(30 * kS, steps(0, 30)).at(30 * kS, saving).at(31 * kS, stop()).at(31 * kS, exit_of(0, 143));
  f.at(31 * kS, exit_of(1, 143)).at(32 * kS, restart(1, 0)).at(32 * kS, start(1, 2));
  f.at(33 * kS, process(0)).at(33 * kS, process(1));
  f.at(40 * kS, journal::Checkpoint{"worker-0", 30, "/ckpt/30"});
  f.at(50 * kS, exit_of(0, 0)).at(50 * kS, exit_of(1, 0)).at(50 * kS, journal::JobSucceeded{});
  const Account a = account({f});
  CHECK(a.checkpoint_saves == 2);
  CHECK(a.checkpoint_save_seconds == Approx(4 + 2));
  CHECK(a.checkpoint_cost_seconds() == Approx(3));
  check_sums(a);
  CHECK(Account{}.checkpoint_cost_seconds() == 0);
}

TEST_CASE("an asynchronous save stalls the ranks until it says training resumed - not its write") {
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(2)).at(0, start(0, 2)).at(0, process(0)).at(0, process(1));
  f.at(10 * kS, steps(0, 10)).at(10 * kS, steps(1, 10));
  journal::CheckpointStarted saving;
  saving.step = 10;
  // 1 s of copying to host memory, then 9 s of writing while training goes on.
  f.at(10 * kS, saving).at(11 * kS, journal::CheckpointResumed{"worker-0", 10, 0});
  f.at(15 * kS, steps(0, 15)).at(15 * kS, steps(1, 15));
  f.at(20 * kS, journal::Checkpoint{"worker-0", 10, "/ckpt/10"});
  f.at(30 * kS, steps(0, 30)).at(30 * kS, steps(1, 30));
  f.at(30 * kS, exit_of(0, 0)).at(30 * kS, exit_of(1, 0)).at(30 * kS, journal::JobSucceeded{});
  const Account a = account({f});
  CHECK(a.causes[Cause::CheckpointStall] == Approx(2 * 1));
  CHECK(a.causes[Cause::Productive] == Approx(2 * (20 - 1)));
  CHECK(a.checkpoint_saves == 1);
  CHECK(a.checkpoint_save_seconds == Approx(1));
  check_sums(a);
}

TEST_CASE("ranks of warm roles are counted warm or cold per attempt") {
  Folder f{"worker-0", {}};
  auto started = [](std::int64_t rank, std::optional<bool> warm) {
    journal::ProcessStarted p = process(rank);
    p.warm = warm;
    return p;
  };
  f.at(0, launcher_started(2)).at(0, start(0, 2));
  f.at(0, started(0, false)).at(0, started(1, false));
  f.at(10 * kS, steps(0, 10)).at(10 * kS, steps(1, 10));
  f.at(11 * kS, exit_of(1, 137)).at(11 * kS, stop()).at(12 * kS, exit_of(0, 143));
  f.at(12 * kS, restart(1, 0)).at(12 * kS, start(1, 2));
  // One rank forked warm, one cold (its interpreter was still importing, say).
  f.at(13 * kS, started(0, true)).at(13 * kS, started(1, false));
  f.at(14 * kS, steps(0, 11)).at(14 * kS, steps(1, 11));
  f.at(20 * kS, exit_of(0, 0)).at(20 * kS, exit_of(1, 0)).at(20 * kS, journal::JobSucceeded{});
  const Account a = account({f});
  REQUIRE(a.attempts.size() == 2);
  CHECK(a.attempts[0].warm_starts == 0);
  CHECK(a.attempts[0].cold_starts == 2);
  CHECK(a.attempts[1].warm_starts == 1);
  CHECK(a.attempts[1].cold_starts == 1);
  // Ranks of a role without warm starts (no `warm` field) are neither.
  Folder plain{"worker-0", {}};
  plain.at(0, launcher_started(1)).at(0, start(0, 1)).at(0, process(0));
  plain.at(5 * kS, exit_of(0, 0)).at(5 * kS, journal::JobSucceeded{});
  const Account b = account({plain});
  REQUIRE(b.attempts.size() == 1);
  CHECK(b.attempts[0].warm_starts + b.attempts[0].cold_starts == 0);
  check_sums(a);
}

TEST_CASE("a hang: the wait runs from the last progress to the verdict") {
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(1)).at(0, start(0, 1)).at(0, process(0));
  f.at(10 * kS, steps(0, 1)).at(20 * kS, steps(0, 2));
  f.at(30 * kS, steps(0, 2));  // the last record: the step no longer moves
  journal::Hang hang;
  hang.instance = "worker-0";
  hang.seconds = 60;
  f.at(80 * kS, hang).at(80 * kS, stop()).at(85 * kS, exit_of(0, 143));
  f.at(85 * kS, journal::JobFailed{});
  const Account a = account({f});
  CHECK(a.causes[Cause::Productive] == Approx(10));
  CHECK(a.causes[Cause::HangWait] == Approx(60));
  CHECK(a.causes[Cause::StopTeardown] == Approx(5));
  check_sums(a);
}

TEST_CASE("the coordinator's decisions apply to the instances' journals in time order") {
  // A job-wide hang and a restart with a delay, from the coordinator's journal only.
  Folder c{"coordinator", {}};
  journal::Hang hang;
  hang.instance = "";
  hang.job_wide = true;
  hang.seconds = 30;
  journal::Restart r;
  r.instance = "worker-0";
  r.attempt = 1;
  r.delay_seconds = 4;
  c.at(0, journal::Progress{}).at(50 * kS, hang).at(52 * kS, r);
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(1)).at(0, start(0, 1)).at(0, process(0));
  f.at(10 * kS, steps(0, 1)).at(20 * kS, steps(0, 5)).at(51 * kS, exit_of(0, 143));
  f.at(60 * kS, start(1, 1)).at(60 * kS, process(0)).at(70 * kS, steps(0, 6));
  f.at(80 * kS, exit_of(0, 0)).at(80 * kS, journal::JobSucceeded{});
  const Account a = account({c, f});
  CHECK(a.causes[Cause::HangWait] == Approx(30));
  CHECK(a.causes[Cause::StopTeardown] == Approx(2 + 0));
  CHECK(a.causes[Cause::RestartBackoff] == Approx(4));
  CHECK(a.causes[Cause::RendezvousChecks] == Approx(4));
  CHECK(a.causes[Cause::Productive] == Approx(10 + 10));
  check_sums(a);
}

TEST_CASE("a job-wide hang journaled in the millisecond of the stops it causes is the hang's") {
  // Found by bench/goodput_ddp.sh: the nodes' `stop` records shared the verdict's millisecond,
  // the stop was applied first and the ranks' silence counted as productive.
  Folder c{"coordinator", {}};
  journal::Hang hang;
  hang.job_wide = true;
  hang.seconds = 5;
  c.at(0, journal::Progress{}).at(50 * kS, hang);
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(2)).at(0, start(0, 2)).at(0, process(0)).at(0, process(1));
  f.at(10 * kS, steps(0, 10)).at(10 * kS, steps(1, 10));
  // Steps are journaled at most every 10 s: the last record that moved is at 40 s, the last
  // progress (the verdict says) at 45 s.
  f.at(40 * kS, steps(0, 40)).at(40 * kS, steps(1, 40));
  f.at(50 * kS, stop()).at(51 * kS, exit_of(0, 143)).at(51 * kS, exit_of(1, 143));
  f.at(51 * kS, journal::JobFailed{});
  const Account a = account({c, f});
  CHECK(a.causes[Cause::HangWait] == Approx(2 * 5));
  CHECK(a.causes[Cause::Productive] == Approx(2 * 35));
  CHECK(a.causes[Cause::StopTeardown] == Approx(2 * 1));
  check_sums(a);
}

TEST_CASE("a rollback that ends before a checkpoint: the time after its end is productive") {
  // Found by bench/goodput_ddp.sh: the checkpoint's end put the rank back into rollback, and
  // the rollback ran on to the checkpoint's start.
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(1)).at(0, start(0, 1)).at(0, process(0));
  f.at(10 * kS, steps(0, 10)).at(20 * kS, steps(0, 40));
  f.at(21 * kS, exit_of(0, 137)).at(21 * kS, stop()).at(22 * kS, restart(1, 0));
  f.at(22 * kS, start(1, 1)).at(22 * kS, process(0));
  // Attempt 1 resumes from step 20: step 21 at 30 s, step 49 at 44 s, so step 40 (where
  // attempt 0 got) at 30 + 14 x 19/28 = 39.5 s; a save from 41 s to 43 s in between.
  journal::CheckpointStarted saving;
  saving.step = 45;
  f.at(30 * kS, steps(0, 21)).at(41 * kS, saving);
  f.at(43 * kS, journal::Checkpoint{"worker-0", 45, "/ckpt/45"});
  f.at(44 * kS, steps(0, 49)).at(50 * kS, exit_of(0, 0)).at(50 * kS, journal::JobSucceeded{});
  const Account a = account({f});
  CHECK(a.causes[Cause::Rollback] == Approx(9.5));
  CHECK(a.causes[Cause::CheckpointStall] == Approx(2));
  // Attempt 0: 10-21 s; attempt 1: 39.5-41 s and 43-50 s.
  CHECK(a.causes[Cause::Productive] == Approx(11 + 1.5 + 7));
  REQUIRE(a.attempts.size() == 2);
  CHECK(a.attempts[1].causes[Cause::Rollback] == Approx(9.5));
  check_sums(a);
}

TEST_CASE("a restart journaled in the millisecond of the exit it follows is the backoff's") {
  Folder c{"coordinator", {}};
  journal::Restart r;
  r.instance = "worker-0";
  r.attempt = 1;
  r.delay_seconds = 1;
  c.at(5 * kS, r);
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(1)).at(0, start(0, 1)).at(0, process(0)).at(1 * kS, steps(0, 1));
  f.at(5 * kS, exit_of(0, 1)).at(6 * kS, journal::Check{}).at(7 * kS, start(1, 1));
  f.at(7 * kS, process(0)).at(8 * kS, exit_of(0, 0)).at(8 * kS, journal::JobSucceeded{});
  const Account a = account({c, f});
  CHECK(a.causes[Cause::RestartBackoff] == Approx(1));
  CHECK(a.causes[Cause::RendezvousChecks] == Approx(1));
  CHECK(a.causes[Cause::StopTeardown] == 0);
  check_sums(a);
}

TEST_CASE("without step records the running time says so instead of guessing") {
  Folder f{"worker-0", {}};
  f.at(0, launcher_started(2)).at(1 * kS, start(0, 2)).at(1 * kS, process(0));
  f.at(1 * kS, process(1)).at(61 * kS, exit_of(0, 0)).at(61 * kS, exit_of(1, 0));
  f.at(62 * kS, journal::JobSucceeded{});
  const Account a = account({f});
  CHECK_FALSE(a.step_data);
  CHECK(a.causes[Cause::RunningNoStepData] == Approx(2 * 60));
  CHECK(a.causes[Cause::Productive] == 0);
  CHECK(a.causes[Cause::FrameworkInit] == 0);
  CHECK(a.ettr() == 0);
  REQUIRE_FALSE(a.notes.empty());
  CHECK(a.notes[0].find("no rank recorded a step") == 0);
  check_sums(a);
}

TEST_CASE("a spare's ranks are idle, and a journal that stops short leaves unknown time") {
  Folder spare{"spare-node-9", {}};
  journal::Standby standby;
  standby.node = "node-9";
  spare.at(5 * kS, launcher_started(0)).at(5 * kS, standby);
  Folder f = clean_run();
  // The launcher of worker-0 is lost after its steps: no exit, no end record.
  f.records.resize(f.records.size() - 4);
  f.name = "worker-0";
  const Account a = account({spare, f});
  CHECK(a.rank_slots == 2 + 2);
  CHECK(a.causes[Cause::IdleSpare] == Approx(2 * 95));
  CHECK(a.causes[Cause::StartUp] == Approx(2 * 5 + 2 * 1));
  // worker-0's journal ends at 100 s, the job (the spare's last record) ... at 100 s too.
  CHECK(a.causes[Cause::Unknown] == 0);
  check_sums(a);
  // A spare whose journal holds no record (its launcher was killed at once) has no slots.
  const Account empty_spare = account({Folder{"spare-node-8", {}}, spare, f});
  CHECK(empty_spare.rank_slots == 4);
  check_sums(empty_spare);
  spare.at(120 * kS, journal::Finish{0, "the job succeeded"});
  const Account later = account({spare, f});
  CHECK(later.causes[Cause::Unknown] == Approx(2 * 20));
  check_sums(later);
}

TEST_CASE("a running job's account: its ranks stay in their causes until now") {
  Folder f = clean_run();
  // At 55 s: the steps to 50 s were journaled, nothing ended.
  f.records.resize(2 + 2 + 2 * 5);
  const Account ended = account({f});
  CHECK(ended.causes[Cause::Unknown] == 0);  // the journal's last record is the job's end
  CHECK(ended.wall_seconds() == Approx(50));
  const Account live = account({f}, 55 * kS);
  CHECK(live.wall_seconds() == Approx(55));
  CHECK(live.causes[Cause::Unknown] == 0);
  CHECK(live.causes[Cause::Productive] == Approx(2 * 45));
  CHECK(live.causes[Cause::FrameworkInit] == Approx(2 * 7));
  CHECK(live.ettr() == Approx(45.0 / 55));
  check_sums(live);
  // A restart's backoff runs on until now, then the time waits for the new attempt.
  f.at(56 * kS, exit_of(1, 137)).at(56 * kS, stop()).at(57 * kS, exit_of(0, 143));
  f.at(57 * kS, restart(1, 2));
  const Account backoff = account({f}, 60 * kS);
  CHECK(backoff.causes[Cause::RestartBackoff] == Approx(2 * 2));
  CHECK(backoff.causes[Cause::RendezvousChecks] == Approx(2 * 2 + 2 * 1));
  check_sums(backoff);
  // A `now` before the latest record (clocks apart) keeps the records' own end.
  const Account early = account({f}, 10 * kS);
  CHECK(early.wall_seconds() == Approx(57));
  check_sums(early);
}

TEST_CASE("garbage and cut-off lines are skipped and said, the rest is accounted") {
  const std::vector<std::string> lines = {
      journal::format_record(kT0, launcher_started(1)),
      "not json at all",
      "{\"time\":\"2026-01-02T03:04:06.000Z\",\"event\":\"from-the-future\"}",
      "{\"time\":\"yesterday\",\"event\":\"steps\",\"step\":3}",
      journal::format_record(kT0 + 1 * kS, start(0, 1)),
      journal::format_record(kT0 + 1 * kS, process(0)),
      "{\"time\":\"2026-01-02T03:04:16.000Z\",\"event\":\"steps\",\"step\":\"ten\",\"rank\":0}",
      journal::format_record(kT0 + 20 * kS, steps(0, 20)),
      "{\"time\":\"2026-01-02T03:04:35.000Z\",\"event\":\"exi",
  };
  goodput::Accountant acc;
  acc.begin_journal(false, "worker-0");
  journal::ReadTally tally;
  std::int64_t skipped = 0;
  for (std::string line : lines) {
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (auto e = journal::parse_record(line, tally)) {
      acc.add(*e);
    } else {
      ++skipped;
    }
  }
  acc.end_journal(skipped);
  const Account a = acc.finish();
  CHECK(a.skipped_lines == 4);
  REQUIRE(a.notes.size() == 2);
  CHECK(a.notes[1] ==
        "4 journal lines were skipped (not a record, an unknown event, cut off or oversized); "
        "their time went to the causes around them");
  // The mistyped step reads as step 0 at 11 s: the first step of rank 0.
  CHECK(a.causes[Cause::FrameworkInit] == Approx(10));
  CHECK(a.causes[Cause::Productive] == Approx(9));
  check_sums(a);
}

TEST_CASE("huge numbers and out-of-order times neither overflow nor break the sums") {
  Folder f{"worker-0", {}};
  journal::Restart r = restart(1, std::numeric_limits<std::int64_t>::max());
  journal::Hang hang;
  hang.instance = "worker-0";
  hang.seconds = std::numeric_limits<std::int64_t>::max();
  f.at(0, launcher_started(3));
  f.at(0, start(0, 3)).at(0, process(0)).at(0, process(1)).at(0, process(2));
  f.at(5 * kS, steps(0, std::numeric_limits<std::int64_t>::max() - 1));
  f.at(6 * kS, steps(0, std::numeric_limits<std::int64_t>::max()));
  f.at(3 * kS, steps(1, std::numeric_limits<std::int64_t>::min()));  // before the last record
  f.at(10 * kS, hang).at(11 * kS, r).at(12 * kS, start(1, 3)).at(12 * kS, process(0));
  f.at(13 * kS, steps(0, 0)).at(14 * kS, steps(0, std::numeric_limits<std::int64_t>::max()));
  // A record in year 9999: the job lasts until then.
  f.at(253402300799000 - kT0, journal::JobSucceeded{});
  const Account a = account({f});
  CHECK(std::isfinite(a.causes.total()));
  CHECK(a.rank_slots == 3);
  check_sums(a);
  CHECK(a.causes[Cause::Rollback] > 0);
}

TEST_CASE("an empty account is zero everywhere") {
  const Account a = account({});
  CHECK(a.causes.total() == 0);
  CHECK(a.ettr() == 0);
  CHECK(a.wall_seconds() == 0);
  CHECK(std::string(goodput::to_string(Cause::HangWait)) == "hang-detection-wait");
}

}  // namespace goodput_test
