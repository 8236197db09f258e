// Hang forensics with real processes: the real pai-launch on Python ranks that hang, one
// outside any collective (time.sleep), the others in a frame named all_reduce; each rank's
// stacks land in logs/forensics/attempt-0/ and the failure summary names the culprit.
#include "launcher/supervisor/forensics.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "launcher/launcher_harness.h"
#include "launcher/os/process.h"

namespace forensics_test {

using namespace pai::testing;

namespace {

// Rank 1 sleeps outside collectives; the others wait in all_reduce. All register faulthandler
// for SIGUSR1 as the pai SDK does. With EXIT_ON_DUMP=R, rank R dies of the dump signal
// instead (it exits while the forensics are collected).
constexpr const char* kRank = R"(import faulthandler, os, signal, sys, time
def all_reduce(seconds):
    time.sleep(seconds)
rank = int(os.environ["RANK"])
if os.environ.get("EXIT_ON_DUMP") == str(rank):
    signal.signal(signal.SIGUSR1, lambda *_: os._exit(3))
else:
    faulthandler.register(signal.SIGUSR1, all_threads=True)
print("rank %d ready" % rank, flush=True)
if rank == 1:
    time.sleep(60)
all_reduce(60)
)";

pai::Plan hang_plan(const TempDir& dir, const std::string& name, int ranks) {
  std::ofstream(dir / "rank.py") << kRank;
  auto plan = local_plan(name, "exec /usr/bin/python3 " + (dir / "rank.py"), ranks);
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 1;
  plan.fault_tolerance.max_restarts = 0;
  return plan;
}

RunResult run_hang(const TempDir& dir, const pai::Plan& plan) {
  return run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--node", "localhost",
                            "--log-dir", dir / "logs"});
}

bool have_eu_stack() {
  return !pai::launcher::search_path("eu-stack", std::getenv("PATH") ? std::getenv("PATH") : "")
              .empty();
}

// Sets PATH for the launcher started in its lifetime (the fake tools' folder first).
class PathPrefix {
 public:
  explicit PathPrefix(const std::string& folder) : old_(std::getenv("PATH")) {
    ::setenv("PATH", (folder + ":" + old_).c_str(), 1);
  }
  ~PathPrefix() { ::setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

}  // namespace

TEST_CASE("a rank blocked outside collectives is named from its stack, every rank's is kept") {
  TempDir dir;
  const auto r = run_hang(dir, hang_plan(dir, "forensics-named", 3));
  INFO(r.err);
  CHECK(r.code == 1);
  const std::string folder = dir / "logs/forensics/attempt-0";
  const std::string rank0 = slurp(folder + "/rank-0.txt");
  const std::string rank1 = slurp(folder + "/rank-1.txt");
  const std::string rank2 = slurp(folder + "/rank-2.txt");
  INFO(rank1);
  // faulthandler's stacks, from each rank's log.
  CHECK(rank0.find("verdict: collective: all_reduce (" + (dir / "rank.py") + ":3)") !=
        std::string::npos);
  CHECK(rank2.find("verdict: collective: all_reduce") != std::string::npos);
  CHECK(rank1.find("verdict: outside: <module> (" + (dir / "rank.py") + ":11)") !=
        std::string::npos);
  CHECK(rank1.find("  File \"" + (dir / "rank.py") + "\", line 11 in <module>") !=
        std::string::npos);
  CHECK(rank1.find("== telemetry ==\nnone: the rank wrote no telemetry ring") != std::string::npos);
  CHECK(slurp(folder + "/xid.worker-0.txt").find("pai-launch hang forensics: kernel Xid") == 0);
  if (have_eu_stack()) {
    // The native stack of the main thread: the interpreter sleeping.
    CHECK(rank1.find("== native stack: eu-stack -p ") != std::string::npos);
    CHECK(rank1.find("TID ") != std::string::npos);
    CHECK(rank1.find("clock_nanosleep") != std::string::npos);
  } else {
    WARN("eu-stack is not installed (elfutils): no native stacks were checked");
  }
  const std::string events = slurp(dir / "logs/worker-0/events.jsonl");
  CHECK(count_lines_with(events,
                         "\"event\":\"forensics\",\"instance\":\"worker-0\","
                         "\"attempt\":0,\"folder\":\"" +
                             folder +
                             "\",\"inCollective\":\"0,2\",\"outside\":\"1\","
                             "\"unknown\":\"\",\"culprit\":1") == 1);
  CHECK(count_lines_with(r.err,
                         "pai-launch:   culprit from the stacks: rank 1 is outside any "
                         "collective (rank 1 at <module> (") == 1);
  CHECK(count_lines_with(r.err, "2 ranks wait in one (rank 0 at all_reduce (") == 2);
  CHECK(count_lines_with(r.err, "); stacks in " + folder) == 1);
  CHECK(leftover_processes("forensics-named").empty());
}

TEST_CASE("forensics survive a rank that exits during collection and a stack tool that hangs") {
  TempDir dir;
  // An eu-stack that never answers: killed at the deadline, before the stop signal.
  std::filesystem::create_directories(dir / "bin");
  std::ofstream(dir / "bin/eu-stack") << "#!/bin/sh\necho attaching to $2\nexec sleep 60\n";
  ::chmod((dir / "bin/eu-stack").c_str(), 0755);
  auto plan = hang_plan(dir, "forensics-faults", 3);
  ::setenv("EXIT_ON_DUMP", "2", 1);
  RunResult r;
  {
    PathPrefix path(dir / "bin");
    r = run_hang(dir, plan);
  }
  ::unsetenv("EXIT_ON_DUMP");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.seconds < 12);
  const std::string folder = dir / "logs/forensics/attempt-0";
  const std::string rank1 = slurp(folder + "/rank-1.txt");
  const std::string rank2 = slurp(folder + "/rank-2.txt");
  INFO(rank1);
  INFO(rank2);
  CHECK(rank1.find("== native stack: eu-stack -p ") != std::string::npos);
  CHECK(rank1.find("attaching to ") != std::string::npos);
  CHECK(rank1.find(": killed)\n") != std::string::npos);
  CHECK(rank1.find("verdict: outside") != std::string::npos);
  // Rank 2 died of the dump signal: nothing to judge, and no error.
  CHECK(rank2.find("verdict: unknown\n") != std::string::npos);
  const std::string events = slurp(dir / "logs/worker-0/events.jsonl");
  CHECK(count_lines_with(events,
                         "\"inCollective\":\"0\",\"outside\":\"1\",\"unknown\":\"2\","
                         "\"culprit\":1") == 1);
  CHECK(leftover_processes("forensics-faults").empty());
}

TEST_CASE("a forensics folder that cannot be made is reported - the culprit is still named") {
  TempDir dir;
  std::filesystem::create_directories(dir / "logs");
  std::ofstream(dir / "logs/forensics") << "a file where the folder goes\n";
  const auto r = run_hang(dir, hang_plan(dir, "forensics-unwritable", 2));
  INFO(r.err);
  CHECK(r.code == 1);
  const std::string folder = dir / "logs/forensics/attempt-0";
  CHECK(count_lines_with(
            r.err, "pai-launch: warning: hang forensics: cannot create " + folder + ": ") == 1);
  CHECK(count_lines_with(r.err, "pai-launch:   culprit from the stacks: rank 1 is outside") == 1);
  CHECK(count_lines_with(r.err, "); the stacks were not kept") == 1);
  const std::string events = slurp(dir / "logs/worker-0/events.jsonl");
  CHECK(count_lines_with(events, "\"culprit\":1,") == 1);
  CHECK(count_lines_with(events, "\"errors\":\"cannot create " + folder) == 1);
  CHECK(leftover_processes("forensics-unwritable").empty());
}

}  // namespace forensics_test
