// End-to-end tests of supervision: the real pai-launch on small /bin/sh jobs.
#include "launcher/supervisor/supervisor.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "launcher/launcher_harness.h"
#include "launcher/logs/journal.h"

namespace supervisor_test {

using namespace pai::testing;

namespace {

std::vector<std::string> run_args(const TempDir& dir, const std::string& plan) {
  return {"run", "--plan", plan, "--node", "localhost", "--log-dir", dir / "logs"};
}

std::string events_of(const TempDir& dir) { return slurp(dir / "logs/worker-0/events.jsonl"); }

// A socket listening on every IPv4 address at a port the kernel chose (not the default port
// range's, which tests running beside hold), and that port.
std::pair<int, int> listening_socket() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  socklen_t size = sizeof sa;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 1) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &size) != 0) {
    throw std::runtime_error("cannot listen on a port of the kernel's choice");
  }
  return {fd, ntohs(sa.sin_port)};
}

}  // namespace

TEST_CASE("two processes get the env contract - their output is relayed and logged") {
  TempDir dir;
  auto plan = local_plan(
      "sup-env",
      "echo \"rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE restart=$PAI_RESTART_COUNT\"", 2);
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  CHECK(count_lines_with(r.out, "[worker-0/0] rank=0 local=0 world=2 restart=0") == 1);
  CHECK(count_lines_with(r.out, "[worker-0/1] rank=1 local=1 world=2 restart=0") == 1);
  CHECK(slurp(dir / "logs/worker-0/rank-1.attempt-0.log") ==
        "rank=1 local=1 world=2 restart=0\n");
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"process-started\"") == 2);
  CHECK(count_lines_with(events, "\"event\":\"job-succeeded\"") == 1);
  CHECK(leftover_processes("sup-env").empty());
}

TEST_CASE("processes get PAI_USER_NAME: the user they run as") {
  TempDir dir;
  auto plan = local_plan("sup-user", "echo \"user=$PAI_USER_NAME/$PAI_USERNAME\"");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  const passwd* me = ::getpwuid(::geteuid());
  REQUIRE(me != nullptr);
  const std::string name = me->pw_name;
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == "user=" + name + "/" + name + "\n");
}

TEST_CASE("a retryable crash is restarted and succeeds - both attempts' logs kept") {
  TempDir dir;
  auto plan = local_plan(
      "sup-retry",
      "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then echo 'NCCL error: peer vanished'; exit 1; fi; "
      "echo \"fine on attempt $PAI_RESTART_COUNT/$TORCHELASTIC_RESTART_COUNT\"");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == "NCCL error: peer vanished\n");
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-1.log") == "fine on attempt 1/1\n");
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"restart\"") == 1);
  CHECK(count_lines_with(events, "\"matchedLine\":\"NCCL error: peer vanished\"") == 1);
  CHECK(count_lines_with(
            r.err,
            "pai-launch: restarting worker-0 in 0s (attempt 1): rank 0 (worker-0 local rank 0): "
            "exit code 1: retryable (\"NCCL error\" in the log)") == 1);
  CHECK(leftover_processes("sup-retry").empty());
}

TEST_CASE("a non-retryable crash fails fast with a root-cause summary") {
  TempDir dir;
  auto plan =
      local_plan("sup-fatal",
                 "echo step 1; echo 'RuntimeError: CUDA error: an illegal memory access was "
                 "encountered' >&2; exit 3");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 1);
  const std::string log = dir / "logs/worker-0/rank-0.attempt-0.log";
  CHECK(r.err.find(
            "pai-launch: job 'sup-fatal' failed: rank 0 (worker-0 local rank 0): exit code 3: not "
            "retryable "
            "(\"an illegal memory access was encountered\" in the log)\n"
            "pai-launch:   root cause: rank 0 (worker-0 local rank 0), exit code 3\n"
            "pai-launch:   classification: exit code 3: not retryable (\"an illegal memory access "
            "was "
            "encountered\" in the log)\n"
            "pai-launch:   matched line: RuntimeError: CUDA error: an illegal memory access was "
            "encountered\n"
            "pai-launch:   last lines of its log:\n"
            "pai-launch:   | step 1\n"
            "pai-launch:   | RuntimeError: CUDA error: an illegal memory access was encountered\n"
            "pai-launch:   full log: " +
            log + "\n") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "logs/worker-0/rank-0.attempt-1.log"));
  CHECK(leftover_processes("sup-fatal").empty());
}

TEST_CASE("maxRestarts exhausted exits 1") {
  TempDir dir;
  auto plan = local_plan("sup-maxrestarts", "echo attempt $PAI_RESTART_COUNT; kill -9 $$");
  plan.fault_tolerance.max_restarts = 2;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 1);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-2.log") == "attempt 2\n");
  CHECK_FALSE(std::filesystem::exists(dir / "logs/worker-0/rank-0.attempt-3.log"));
  CHECK(count_lines_with(
            r.err,
            "pai-launch: job 'sup-maxrestarts' failed: rank 0 (worker-0 local rank 0): signal 9 "
            "(SIGKILL): retryable (killed from outside), but maxRestarts (2) is "
            "exhausted") == 1);
  CHECK(leftover_processes("sup-maxrestarts").empty());
}

TEST_CASE("maxSameError stops restarting an error that keeps coming back") {
  TempDir dir;
  auto plan = local_plan("sup-sameerror", "echo 'dial tcp: connect timeout'; exit 1");
  plan.fault_tolerance.max_restarts = 10;
  plan.fault_tolerance.max_same_error = 2;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 1);
  CHECK(count_lines_with(r.err, "but the same error occurred 2 times (maxSameError 2)") == 1);
  CHECK(std::filesystem::exists(dir / "logs/worker-0/rank-0.attempt-1.log"));
  CHECK_FALSE(std::filesystem::exists(dir / "logs/worker-0/rank-0.attempt-2.log"));
  CHECK(leftover_processes("sup-sameerror").empty());
}

TEST_CASE("a SIGSTOPped rank is detected as hung with a 2 s interval and restarted") {
  TempDir dir;
  auto plan = local_plan(
      "sup-hang",
      "if [ \"$PAI_RESTART_COUNT\" = 0 ] && [ \"$LOCAL_RANK\" = 1 ]; then kill -STOP $$; fi; "
      "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then sleep 30; fi; echo done",
      2);
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 2;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"hang\"") == 1);
  CHECK(count_lines_with(events, "\"event\":\"stack-dump\"") == 1);
  CHECK(count_lines_with(
            r.err, "pai-launch: worker-0: hang: no output and no progress for 2s: retryable") == 1);
  CHECK(slurp(dir / "logs/worker-0/rank-1.attempt-1.log") == "done\n");
  CHECK(r.seconds >= 2);
  CHECK(r.seconds < 10);
  CHECK(leftover_processes("sup-hang").empty());
}

// A rank that steps through the SDK's telemetry ring without printing anything: STEPS steps
// of STEP_SECONDS, then, in the first attempt, it blocks for 30 s.
constexpr const char* kSteppingRank = R"(import os, sys, time
from pai import telemetry
ring = telemetry.ring()
assert ring is not None, "no PAI_TELEMETRY_FILE"
for step in range(int(os.environ["STEPS"])):
    ring.step_begin(step)
    time.sleep(float(os.environ["STEP_SECONDS"]))
    ring.step_end(step)
if os.environ["PAI_RESTART_COUNT"] == "0" and os.environ.get("BLOCK") == "1":
    time.sleep(30)
)";

pai::Plan stepping_plan(const TempDir& dir, const std::string& name, const std::string& env) {
  std::ofstream(dir / "rank.py") << kSteppingRank;
  auto plan = local_plan(name, env + " PYTHONPATH=" PAI_SOURCE_DIR "/sdk/python exec /usr/bin/python3 " +
                                   (dir / "rank.py"));
  plan.fault_tolerance.hang.enabled = true;
  return plan;
}

TEST_CASE("steps recorded in the telemetry ring are progress - a silent stepping rank is not hung") {
  TempDir dir;
  auto plan = stepping_plan(dir, "sup-tel-progress", "STEPS=40 STEP_SECONDS=0.1");
  plan.fault_tolerance.hang.interval_seconds = 2;  // 4 s of steps without a line of output
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(count_lines_with(events_of(dir), "\"event\":\"hang\"") == 0);
  CHECK(r.seconds >= 4);
  CHECK(leftover_processes("sup-tel-progress").empty());
}

TEST_CASE("a rank's telemetry steps reach the journal - and the report's step-rate panel") {
  TempDir dir;
  auto plan = stepping_plan(dir, "sup-tel-steps", "STEPS=30 STEP_SECONDS=0.1");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  INFO(events);
  // Its first step when first seen, then (3 s is less than the 10 s interval) its last at exit.
  const auto steps = count_lines_with(events, "\"event\":\"steps\",\"instance\":\"worker-0\",");
  CHECK(steps == 2);
  CHECK(count_lines_with(events,
                         "\"event\":\"steps\",\"instance\":\"worker-0\",\"step\":29,"
                         "\"rank\":0}") == 1);
  const std::string report = slurp(dir / "logs/report.html");
  CHECK(report.find("No record in the journals carries a step") == std::string::npos);
  CHECK(report.find("class=\"rate\"") != std::string::npos);
}

TEST_CASE("after warm-up the hang interval adapts to the step time - a 60 s interval acts in 1 s") {
  TempDir dir;
  auto plan = stepping_plan(dir, "sup-adaptive", "STEPS=10 STEP_SECONDS=0.05 BLOCK=1");
  plan.fault_tolerance.hang.interval_seconds = 60;
  plan.fault_tolerance.hang.adaptive_factor = 10;  // 10 x 0.05 s < the 1 s floor
  plan.fault_tolerance.hang.adaptive_floor_seconds = 1;
  plan.fault_tolerance.hang.adaptive_warmup_steps = 5;
  plan.fault_tolerance.max_restarts = 1;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);  // the second attempt does not block
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"hang\",\"instance\":\"worker-0\",\"seconds\":1,") ==
        1);
  CHECK(count_lines_with(r.err, "pai-launch: worker-0: hang: no output and no progress for 1s") == 1);
  CHECK(r.seconds < 20);
  CHECK(leftover_processes("sup-adaptive").empty());
}

TEST_CASE("ctl hang-interval changes the hang interval - notify reaches the journal") {
  TempDir dir;
  auto plan = local_plan("sup-ctl", "if [ \"$PAI_RESTART_COUNT\" = 1 ]; then exit 0; fi; " +
                                        kLauncher + " ctl notify 'loss is NaN' && " + kLauncher +
                                        " ctl progress 7 && " + kLauncher +
                                        " ctl hang-interval 1 && sleep 30");
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 60;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(
            events, "\"event\":\"notify\",\"instance\":\"worker-0\",\"message\":\"loss is NaN\"") ==
        1);
  CHECK(count_lines_with(
            events, "\"event\":\"hang-interval\",\"instance\":\"worker-0\",\"seconds\":1") == 1);
  CHECK(count_lines_with(events,
                         "\"event\":\"hang\",\"instance\":\"worker-0\",\"seconds\":1,\"exiting\":"
                         "false,\"lastStep\":7") == 1);
  CHECK(r.seconds < 10);
  CHECK(leftover_processes("sup-ctl").empty());
}

TEST_CASE("ctl retryable-error makes a matching failure retryable for the rest of the job") {
  TempDir dir;
  auto plan = local_plan("sup-retryable",
                         "if [ \"$PAI_RESTART_COUNT\" = 1 ]; then exit 0; fi; " + kLauncher +
                             " ctl retryable-error 'custom glitch' && echo 'a custom glitch "
                             "happened'; exit 1");
  plan.fault_tolerance.policy = pai::RestartPolicy::ExitCodeAndErrorMsg;
  plan.fault_tolerance.max_restarts = 3;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"retryable-error\",\"instance\":\"worker-0\","
                                 "\"text\":\"custom glitch\"") == 1);
  CHECK(count_lines_with(events, "\"retryable\":true") == 1);
  CHECK(std::filesystem::exists(dir / "logs/worker-0/rank-0.attempt-1.log"));

  SECTION("without it the same failure is final") {
    TempDir plain;
    auto same = local_plan("sup-retryable", "echo 'a custom glitch happened'; exit 1");
    same.fault_tolerance.policy = pai::RestartPolicy::ExitCodeAndErrorMsg;
    same.fault_tolerance.max_restarts = 3;
    CHECK(run_launcher(plain, run_args(plain, write_plan(plain, same))).code == 1);
    CHECK(count_lines_with(events_of(plain), "\"retryable\":false") == 1);
  }
}

TEST_CASE("ctl checkpoint-advice prints the plan's interval and no request") {
  TempDir dir;
  auto plan = local_plan("sup-advice", kLauncher + " ctl checkpoint-advice");
  plan.fault_tolerance.checkpoint_plan.interval_seconds = 4342;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == "interval=4342 request=0\n");
}

TEST_CASE("ctl hang-interval off keeps a silent stage from counting as a hang") {
  TempDir dir;
  auto plan = local_plan("sup-hang-off", kLauncher +
                                             " ctl hang-interval off && sleep 3 && " + kLauncher +
                                             " ctl exit-hang-interval 5m && echo done");
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 1;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"hang\"") == 0);
  CHECK(count_lines_with(events, "\"event\":\"hang-interval\",\"instance\":\"worker-0\","
                                 "\"seconds\":0,\"default\":false,\"off\":true") == 1);
  CHECK(count_lines_with(events, "\"event\":\"exit-hang-interval\",\"instance\":\"worker-0\","
                                 "\"seconds\":300") == 1);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == "done\n");
}

TEST_CASE("a stop with stacks goes on once they are collected - not after the whole window") {
  TempDir dir;
  auto plan = local_plan("sup-dump-early",
                         "exec /usr/bin/python3 -c '\n"
                         "import faulthandler, os, signal, sys, time\n"
                         "if os.environ[\"PAI_RESTART_COUNT\"] == \"1\": sys.exit(0)\n"
                         "faulthandler.register(signal.SIGUSR1)\n"
                         "time.sleep(60)\n'");
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 2;
  plan.fault_tolerance.grace_period_seconds = 30;  // the window is the full 3 s
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  // From the stop with stacks to the rank's exit (the stop signal ends it at once): the
  // collection's half second and the tools', not the 3 s window.
  std::optional<std::int64_t> stop_ms;
  std::optional<std::int64_t> exit_ms;
  std::istringstream lines(events_of(dir));
  pai::launcher::journal::ReadTally tally;
  for (std::string line; std::getline(lines, line);) {
    const auto entry = pai::launcher::journal::parse_record(line, tally);
    if (!entry) continue;
    if (const auto* stop = std::get_if<pai::launcher::journal::Stop>(&entry->event)) {
      if (stop->dump_stacks && !stop_ms) stop_ms = entry->unix_ms;
    } else if (std::holds_alternative<pai::launcher::journal::Exit>(entry->event)) {
      if (stop_ms && !exit_ms) exit_ms = entry->unix_ms;
    }
  }
  REQUIRE(stop_ms);
  REQUIRE(exit_ms);
  CHECK(*exit_ms - *stop_ms < 2800);
  CHECK(count_lines_with(events_of(dir), "\"event\":\"forensics\"") == 1);
}

TEST_CASE("a hang dump signals only processes that catch it - a plain Python rank survives it") {
  TempDir dir;
  // Local rank 0 registers faulthandler for SIGUSR1, local rank 1 does not (SIGUSR1 would end
  // it). Both hang in the first attempt and finish in the second.
  auto plan = local_plan(
      "sup-dump",
      "exec /usr/bin/python3 -c '\n"
      "import faulthandler, os, signal, sys, time\n"
      "if os.environ[\"PAI_RESTART_COUNT\"] == \"1\": print(\"done\"); sys.exit(0)\n"
      "if os.environ[\"LOCAL_RANK\"] == \"0\": faulthandler.register(signal.SIGUSR1)\n"
      "print(\"waiting\", flush=True)\n"
      "signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\n"
      "time.sleep(60)\n'",
      2);
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 2;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"stack-dump\",\"instance\":\"worker-0\","
                                 "\"method\":\"SIGQUIT, SIGUSR1\",\"sigquit\":0,\"sigusr1\":1") ==
        1);
  // Rank 0's Python stack is in its log; rank 1 lived on to get the stop signal (exit 7).
  const std::string dumped = slurp(dir / "logs/worker-0/rank-0.attempt-0.log");
  CHECK(dumped.find("File \"<string>\", line 7 in <module>") != std::string::npos);
  CHECK(count_lines_with(events, "\"rank\":1,\"pid\"") >= 1);
  CHECK(count_lines_with(events, "\"status\":\"exit code 7\"") == 2);
  CHECK(slurp(dir / "logs/worker-0/rank-1.attempt-1.log") == "done\n");
}

TEST_CASE("a stop waits for a checkpoint in flight - restarted ranks get the latest checkpoint") {
  TempDir dir;
  const std::string out = dir / "out";
  // Rank 0 reports a save, says training resumed (an asynchronous save's write goes on),
  // finishes it 2 s later and waits; rank 1 fails once the save began.
  auto plan = local_plan(
      "sup-ckpt",
      "if [ \"$PAI_RESTART_COUNT\" = 1 ]; then echo \"latest=$PAI_LATEST_CHECKPOINT\"; exit 0; "
      "fi; if [ \"$LOCAL_RANK\" = 0 ]; then " +
          kLauncher + " ctl checkpoint-begin 5 && " + kLauncher +
          " ctl checkpoint-resumed 5 && touch " + dir.path() + "/began && sleep 2 && mkdir -p " +
          out + "/checkpoints/step-5 && echo '{}' > " + out +
          "/checkpoints/step-5/meta.json && echo step-5 > " + out + "/checkpoints/latest && " +
          kLauncher + " ctl checkpoint-done 5 " + out +
          "/checkpoints/step-5; exec sleep 60; fi; while [ ! -e " + dir.path() +
          "/began ]; do sleep 0.05; done; exit 1",
      2);
  plan.output = out;
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  plan.fault_tolerance.max_restarts = 1;
  plan.fault_tolerance.checkpoint_wait_seconds = 60;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events,
                         "\"event\":\"checkpoint-resumed\",\"instance\":\"worker-0\","
                         "\"step\":5,\"rank\":0") == 1);
  // Resumed is not done: the stop still waits for the write.
  CHECK(count_lines_with(events, "\"event\":\"checkpoint-wait\",\"instance\":\"worker-0\","
                                 "\"step\":5,\"seconds\":60") == 1);
  CHECK(count_lines_with(r.err, "worker-0: waiting up to 1m for the checkpoint of step 5 before "
                                "stopping") == 1);
  // The stop signal went out when the save ended, not after the whole minute: rank 0 was
  // still running when its checkpoint was recorded.
  const std::size_t done = events.find("\"event\":\"checkpoint\",\"instance\":\"worker-0\"");
  const std::size_t rank0_exit = events.find("\"event\":\"exit\",\"instance\":\"worker-0\",\"rank\":0");
  REQUIRE(done != std::string::npos);
  REQUIRE(rank0_exit != std::string::npos);
  CHECK(done < rank0_exit);
  CHECK(r.seconds < 30);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-1.log") ==
        "latest=" + out + "/checkpoints/step-5\n");
  CHECK(leftover_processes("sup-ckpt").empty());
}

TEST_CASE("a checkpoint that never ends holds a stop for checkpointWait at most") {
  TempDir dir;
  auto plan = local_plan("sup-ckpt-lost",
                         "if [ \"$LOCAL_RANK\" = 0 ]; then " + kLauncher +
                             " ctl checkpoint-begin 9 && touch " + dir.path() +
                             "/began && exec sleep 60; fi; while [ ! -e " + dir.path() +
                             "/began ]; do sleep 0.05; done; exit 1",
                         2);
  plan.fault_tolerance.max_restarts = 0;
  plan.fault_tolerance.checkpoint_wait_seconds = 2;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(count_lines_with(events_of(dir), "\"event\":\"checkpoint-wait\"") == 1);
  CHECK(r.seconds >= 2);
  CHECK(r.seconds < 15);
  CHECK(leftover_processes("sup-ckpt-lost").empty());
}

TEST_CASE("a rank killed while saving a checkpoint does not hold the stop for checkpointWait") {
  TempDir dir;
  // Rank 0 begins a save through `ctl` (a child of the rank's shell), then dies with it.
  auto plan = local_plan("sup-ckpt-dead",
                         "if [ \"$LOCAL_RANK\" = 0 ]; then " + kLauncher +
                             " ctl checkpoint-begin 9 && kill -9 $$; fi; "
                             "while :; do sleep 0.05; done",
                         2);
  plan.fault_tolerance.max_restarts = 0;
  plan.fault_tolerance.checkpoint_wait_seconds = 60;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 1);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"checkpoint-started\",\"instance\":\"worker-0\","
                                 "\"step\":9,\"rank\":0") == 1);
  CHECK(count_lines_with(events, "\"event\":\"checkpoint-abandoned\",\"instance\":\"worker-0\","
                                 "\"step\":9,\"rank\":0") == 1);
  CHECK(count_lines_with(events, "\"event\":\"checkpoint-wait\"") == 0);
  CHECK(r.seconds < 30);
  CHECK(leftover_processes("sup-ckpt-dead").empty());
}

TEST_CASE("control characters of a rank are escaped in pai's lines - relayed output is exact") {
  TempDir dir;
  auto plan = local_plan("sup-escape", kLauncher +
                                           " ctl notify \"$(printf 'a\\033[2Jb')\"; "
                                           "printf 'boom\\033[31m red\\r\\n'; exit 3");
  plan.fault_tolerance.max_restarts = 0;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 1);
  CHECK(count_lines_with(r.err, "pai-launch: worker-0: notify: a\\x1b[2Jb") == 1);
  CHECK(count_lines_with(r.err, "pai-launch:   | boom\\x1b[31m red\\x0d") == 1);
  // The launcher's own lines hold no escape byte; the rank's relayed output is byte-exact.
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    if (line.rfind("pai-launch:", 0) == 0) CHECK(line.find('\x1b') == std::string::npos);
  }
  CHECK((r.out + r.err).find("boom\x1b[31m red\r\n") != std::string::npos);
  CHECK(leftover_processes("sup-escape").empty());
}

TEST_CASE(
    "SIGTERM to the launcher cancels - a child ignoring it is killed after the grace period") {
  TempDir dir;
  auto plan = local_plan("sup-sigterm",
                         "if [ \"$LOCAL_RANK\" = 0 ]; then trap 'echo got TERM; exit 0' TERM; "
                         "else trap '' TERM; fi; touch " +
                             dir.path() +
                             "/ready$LOCAL_RANK; "
                             "while :; do sleep 0.05; done",
                         2);
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  REQUIRE(wait_for_file(dir / "ready0"));
  REQUIRE(wait_for_file(dir / "ready1"));
  kill(launcher.pid(), SIGTERM);
  CHECK(launcher.wait() == 128 + SIGTERM);
  CHECK(count_lines_with(slurp(dir / "logs/worker-0/rank-0.attempt-0.log"), "got TERM") == 1);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"signal\",\"signal\":15") == 1);
  CHECK(count_lines_with(
            events,
            "\"event\":\"kill\",\"instance\":\"worker-0\",\"reason\":\"grace period over\"") == 1);
  // A user's stop is a cancel, not a failure: no failure summary.
  CHECK(count_lines_with(events, "\"event\":\"job-cancelled\",\"job\":\"sup-sigterm\","
                                 "\"reason\":\"pai-launch received SIGTERM\",\"exitCode\":143") == 1);
  CHECK(count_lines_with(events, "job-failed") == 0);
  CHECK(count_lines_with(launcher.err(),
                         "pai-launch: job 'sup-sigterm' cancelled: pai-launch received SIGTERM") == 1);
  CHECK(count_lines_with(launcher.err(), "failed") == 0);
  CHECK(leftover_processes("sup-sigterm").empty());
}

TEST_CASE("kill -9 of the launcher takes its children with it") {
  TempDir dir;
  auto plan =
      local_plan("sup-kill9", "touch " + dir.path() + "/ready$LOCAL_RANK; exec sleep 30", 2);
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  REQUIRE(wait_for_file(dir / "ready0"));
  REQUIRE(wait_for_file(dir / "ready1"));
  // Both shells have exec'd sleep once the group holds exactly two processes.
  for (int i = 0; i < 200 && leftover_processes("sup-kill9", 0).size() != 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(leftover_processes("sup-kill9", 0).size() == 2);
  kill(launcher.pid(), SIGKILL);
  CHECK(launcher.wait() == 128 + SIGKILL);
  CHECK(leftover_processes("sup-kill9").empty());
  // A killed launcher cannot remove its socket; the next one replaces it as stale.
  std::filesystem::remove_all("/tmp/pai/sup-kill9");
}

TEST_CASE("kill -9 of the launcher takes grandchildren that left the group too (cgroup v2)") {
  TempDir dir;
  // `sh -c 'python ...'`-style ranks: the shell does not exec, and its child even leaves the
  // process group. Only the rank's cgroup still holds it.
  auto plan = local_plan("sup-kill9-tree",
                         "setsid sleep 60 & touch " + dir.path() + "/ready$LOCAL_RANK; wait", 2);
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  REQUIRE(wait_for_file(dir / "ready0"));
  REQUIRE(wait_for_file(dir / "ready1"));
  for (int i = 0; i < 200 && leftover_processes("sup-kill9-tree", 0).size() != 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(leftover_processes("sup-kill9-tree", 0).size() == 4);
  kill(launcher.pid(), SIGKILL);
  CHECK(launcher.wait() == 128 + SIGKILL);
  if (launcher.err().find("no cgroup v2 containment") != std::string::npos) {
    WARN("cgroup v2 not usable here: " << launcher.err());
    for (int pid : leftover_processes("sup-kill9-tree", 0)) kill(pid, SIGKILL);
  } else {
    CHECK(leftover_processes("sup-kill9-tree").empty());
  }
  std::filesystem::remove_all("/tmp/pai/sup-kill9-tree");
}

TEST_CASE("running out of descriptors while starting ranks stops the started ones - exit 2") {
  TempDir dir;
  // 200 ranks need 400 pipes and 200 log files: far more than 64 descriptors.
  auto plan = local_plan("sup-emfile", "exec sleep 60", 200);
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  const rlimit limit{64, 64};
  REQUIRE(::prlimit(launcher.pid(), RLIMIT_NOFILE, &limit, nullptr) == 0);
  const int code = launcher.wait(30);
  INFO(launcher.err());
  CHECK(code == 2);
  CHECK(count_lines_with(launcher.err(), "Too many open files (open files limit 64; raise "
                                         "`ulimit -n` or run fewer processes per node)") == 1);
  CHECK(count_lines_with(events_of(dir), "\"event\":\"spawn-failed\"") == 1);
  CHECK(leftover_processes("sup-emfile").empty());
}

TEST_CASE("a forked grandchild that outlives its parent is reaped - not left a zombie") {
  TempDir dir;
  auto plan = local_plan("sup-grandchild",
                         "(setsid sleep 0.2 &); touch " + dir.path() + "/ready; sleep 1.5");
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  REQUIRE(wait_for_file(dir / "ready"));
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  // The orphaned sleep came to the launcher (a subreaper) and exited: it must be reaped.
  int zombies = 0;
  std::string children = slurp("/proc/" + std::to_string(launcher.pid()) + "/task/" +
                                   std::to_string(launcher.pid()) + "/children");
  std::istringstream list(children);
  for (int pid; list >> pid;) {
    std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    if (close != std::string::npos && stat.substr(close + 2, 1) == "Z") ++zombies;
  }
  CHECK(zombies == 0);
  CHECK(launcher.wait() == 0);
  CHECK(leftover_processes("sup-grandchild").empty());
}

TEST_CASE("a child that closes stdout and keeps running is still supervised") {
  TempDir dir;
  auto plan = local_plan("sup-closed", "echo before; exec >&- 2>&-; sleep 1; exit 4");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 1);
  CHECK(r.seconds >= 1);
  CHECK(count_lines_with(r.out, "[worker-0/0] before") == 1);
  CHECK(count_lines_with(r.err, "root cause: rank 0 (worker-0 local rank 0), exit code 4") == 1);
  CHECK(leftover_processes("sup-closed").empty());
}

TEST_CASE("a child flooding output without newlines is split at 64 KiB and logged whole") {
  TempDir dir;
  auto plan = local_plan("sup-flood", "head -c 300000 /dev/zero | tr '\\000' x");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == std::string(300000, 'x'));
  CHECK(count_lines_with(r.out, "[worker-0/0] ") == 5);
  CHECK(r.out.size() == 300000 + 5 * std::string("[worker-0/0] \n").size());
  CHECK(leftover_processes("sup-flood").empty());
}

TEST_CASE("the documented five-line Python client talks to the control socket") {
  TempDir dir;
  spit(dir / "client.py",
             "import os, socket\n"
             "s = socket.socket(socket.AF_UNIX); s.connect(os.environ[\"PAI_CONTROL_SOCKET\"]); f "
             "= s.makefile()\n"
             "def ctl(line):\n"
             "    s.sendall(line.encode() + b\"\\n\"); return f.readline().strip()\n"
             "assert ctl(\"progress 1200\") == \"ok\" and ctl(\"hang-interval 2h\") == \"ok\"\n"
             "print(ctl(\"progress x\"))\n");
  auto plan = local_plan("sup-python", "/usr/bin/python3 " + dir.path() + "/client.py");
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  CHECK(count_lines_with(r.out, "[worker-0/0] error progress needs a step number >= 0, got 'x'") ==
        1);
  CHECK(count_lines_with(
            events_of(dir),
            "\"event\":\"hang-interval\",\"instance\":\"worker-0\",\"seconds\":7200") == 1);
  CHECK(leftover_processes("sup-python").empty());
}

TEST_CASE("ranks stuck exiting past exitInterval count as a hang") {
  TempDir dir;
  auto plan = local_plan("sup-exiting",
                         "if [ \"$PAI_RESTART_COUNT\" = 0 ] && [ \"$LOCAL_RANK\" = 1 ]; then exec "
                         "sleep 30; fi; exit 0",
                         2);
  plan.fault_tolerance.hang.enabled = true;
  plan.fault_tolerance.hang.interval_seconds = 60;
  plan.fault_tolerance.hang.exit_interval_seconds = 1;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  CHECK(r.code == 0);
  CHECK(count_lines_with(r.err,
                         "pai-launch: worker-0: hang: ranks still running 1s after the first one "
                         "exited: retryable") == 1);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(
            events,
            "\"event\":\"hang\",\"instance\":\"worker-0\",\"seconds\":1,\"exiting\":true") == 1);
  CHECK(count_lines_with(events, "\"classification\":\"stopped by pai-launch\"") == 1);
  CHECK(r.seconds < 10);
  CHECK(leftover_processes("sup-exiting").empty());
}

// masterStore launcher: the launcher serves the ranks' store before they start. Rank 1 is a
// client of it, and writes a marker, before rank 0 has even imported torch: with rank 0's own
// store (rank0) rank 1 could not connect and rank 0 would give up waiting for the marker. The
// job then trains through a restart, both attempts on the one store the launcher keeps.
TEST_CASE(
    "with masterStore launcher the ranks meet through the launcher's store - across a "
    "restart") {
  TempDir dir;
  const std::string script = R"(
import datetime, os, sys, time
rank, attempt = int(os.environ["RANK"]), int(os.environ["TORCHELASTIC_RESTART_COUNT"])
marker = os.environ["MARKER"] + str(attempt)
assert os.environ["TORCHELASTIC_USE_AGENT_STORE"] == "True"
if rank == 0:
    deadline = time.time() + 30
    while not os.path.exists(marker):
        if time.time() > deadline:
            sys.exit("rank 1 never reached the store before rank 0 started")
        time.sleep(0.05)
import torch, torch.distributed as dist
if rank == 1:
    probe = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), None, False,
                          datetime.timedelta(seconds=10))
    probe.set("probe/%d" % attempt, "1")
    open(marker, "w").close()
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print("attempt %d sum %d" % (attempt, int(t.item())), flush=True)
if attempt == 0 and rank == 1:
    print("NCCL error: the test's one failure", flush=True)
    sys.exit(1)
dist.destroy_process_group()
)";
  spit(dir / "rank.py", script);
  auto plan = local_plan(
      "sup-store", "MARKER=" + dir / "marker-" + " exec /usr/bin/python3 " + dir / "rank.py", 2);
  plan.master_store = pai::MasterStore::Launcher;
  // A port nobody else uses: the default range's is shared with the tests running beside.
  const auto [probe, port] = listening_socket();
  ::close(probe);
  plan.master.port = port;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log").find("attempt 0 sum 3") !=
        std::string::npos);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-1.log").find("attempt 1 sum 3") !=
        std::string::npos);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"store-serving\"") == 1);
  CHECK(count_lines_with(events, "\"event\":\"restart\"") == 1);
  CHECK(count_lines_with(events, "\"event\":\"store-client-closed\"") == 0);
  CHECK(leftover_processes("sup-store").empty());
}

// The port is taken on rank 0's node: the job fails before rank 0 starts, saying where and why.
TEST_CASE("with masterStore launcher a taken MASTER_PORT fails the job before rank 0 starts") {
  TempDir dir;
  auto plan = local_plan("sup-store-taken", "echo should not run", 2);
  plan.master_store = pai::MasterStore::Launcher;
  const auto [holder, port] = listening_socket();
  plan.master.port = port;
  auto r = run_launcher(dir, run_args(dir, write_plan(dir, plan)));
  ::close(holder);
  CHECK(r.code == 1);
  CHECK(count_lines_with(r.err, "error: cannot serve the ranks' store on 127.0.0.1:" +
                                    std::to_string(plan.master.port) +
                                    ": Address already in use (another job on this node?") == 1);
  CHECK(count_lines_with(events_of(dir), "\"event\":\"process-started\"") == 0);
  CHECK(r.out.find("should not run") == std::string::npos);
}

// The first start is cold; the restart forks each rank from its slot's warm interpreter, which
// imported the preload while attempt 0 ran: the rank finds the module imported, and is the
// launcher's child in the rank's group, as a cold rank is.
TEST_CASE("warm starts: a restart forks each rank from its warm interpreter") {
  TempDir dir;
  spit(dir / "heavy.py", "import time\nimported_at = time.time()\n");
  spit(dir / "rank.py",
       "import os, sys, time\n"
       "attempt = int(os.environ['PAI_RESTART_COUNT'])\n"
       "parent = os.readlink('/proc/%d/exe' % os.getppid())\n"
       "print('attempt %d warm %s parent %s own-group %s' % (attempt, 'heavy' in sys.modules,\n"
       "      os.path.basename(parent), os.getpgid(0) != os.getpgid(os.getppid())), flush=True)\n"
       "if attempt == 0:\n"
       "    # Fails once the test saw both interpreters ready.\n"
       "    deadline = time.time() + 30\n"
       "    while time.time() < deadline and not os.path.exists(os.environ['READY']):\n"
       "        time.sleep(0.05)\n"
       "    sys.exit(1)\n");
  auto plan = local_plan("sup-warm", "unused", 2);
  plan.roles[0].command = {"/usr/bin/python3", dir / "rank.py"};
  plan.roles[0].launch_argv = plan.roles[0].command;
  plan.roles[0].env = {{"PYTHONPATH", dir.path()}, {"READY", dir / "ready"}};
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  plan.fault_tolerance.warm_start.roles = {"worker"};
  plan.fault_tolerance.warm_start.preload = {"heavy"};
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (count_lines_with(launcher.err(), "warm interpreter ready (imported heavy in ") < 2 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  spit(dir / "ready", "");
  const int code = launcher.wait(60);
  const std::string err = launcher.err();
  INFO(err);
  CHECK(code == 0);
  CHECK(count_lines_with(err, "warm interpreter ready (imported heavy in ") == 2);
  for (int rank = 0; rank < 2; ++rank) {
    const std::string prefix = dir / "logs/worker-0/rank-" + std::to_string(rank);
    CHECK(slurp(prefix + ".attempt-0.log") ==
          "attempt 0 warm False parent pai-launch own-group True\n");
    CHECK(slurp(prefix + ".attempt-1.log") ==
          "attempt 1 warm True parent pai-launch own-group True\n");
  }
  CHECK(count_lines_with(err,
                         "worker-0 rank 0 starts cold: its warm interpreter is not started "
                         "yet (the first start is cold)") == 1);
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"event\":\"warm-start-cold\"") == 2);
  CHECK(count_lines_with(events, "\"warm\":false") == 2);
  CHECK(count_lines_with(events, "\"warm\":true") == 2);
  CHECK(leftover_processes("sup-warm").empty());
}

// The warm interpreters' log cannot be created (a full or read-only disk; here a folder in its
// place): said, and every rank starts cold; the job runs and restarts as without warm starts.
TEST_CASE("warm starts: a warm-interpreters.log that cannot be created leaves the ranks cold") {
  TempDir dir;
  spit(dir / "rank.py",
       "import os, sys\n"
       "print('attempt', os.environ['PAI_RESTART_COUNT'], flush=True)\n"
       "sys.exit(1 if os.environ['PAI_RESTART_COUNT'] == '0' else 0)\n");
  auto plan = local_plan("sup-warm-nolog", "unused", 1);
  plan.roles[0].command = {"/usr/bin/python3", dir / "rank.py"};
  plan.roles[0].launch_argv = plan.roles[0].command;
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  plan.fault_tolerance.warm_start.roles = {"worker"};
  plan.fault_tolerance.warm_start.preload = {"json"};
  REQUIRE(std::system(("mkdir -p " + dir / "logs/worker-0/warm-interpreters.log").c_str()) == 0);
  Launcher launcher(dir, run_args(dir, write_plan(dir, plan)));
  const int code = launcher.wait(60);
  const std::string err = launcher.err();
  INFO(err);
  CHECK(code == 0);
  CHECK(count_lines_with(err, "warning: worker-0: cannot open " +
                                  dir / "logs/worker-0/warm-interpreters.log for its warm "
                                        "interpreters: Is a directory; its ranks start cold") >= 1);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-1.log") == "attempt 1\n");
  const std::string events = events_of(dir);
  CHECK(count_lines_with(events, "\"warm\":true") == 0);
  CHECK(count_lines_with(events, "\"warm\":false") == 2);
  CHECK(leftover_processes("sup-warm-nolog").empty());
}

}  // namespace supervisor_test
