// End-to-end tests of `pai-launch run`: phases, node identification, bad input, exit codes.
#include "launcher/commands/run_command.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "launcher/launcher_harness.h"
#include "launcher/os/cgroup.h"
#include "libpai/plan_seal.h"

namespace run_command_test {

using namespace pai::testing;

namespace {

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("run reports each phase with its timing and finds the node by its address") {
  TempDir dir;
  auto plan = local_plan("run-phases", "exit 0");
  const std::string path = write_plan(dir, plan);
  auto r = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  CHECK(r.code == 0);
  CHECK(r.err.find("pai-launch: plan: job 'run-phases' from " + path +
                   " (pai-compile test, 1 instance(s), 1 process(es)) [") == 0);
  CHECK(count_lines_with(
            r.err, "pai-launch: node: localhost runs worker-0 (by address 127.0.0.1) [") == 1);
  CHECK(count_lines_with(r.err, "pai-launch: logs: " + dir.path() + "/logs/worker-0 [") == 1);
  CHECK(count_lines_with(r.err, "pai-launch: started worker-0 attempt 0: 1 process(es) in ") == 1);
  CHECK(count_lines_with(r.err, "pai-launch: job 'run-phases' succeeded") == 1);
  CHECK(count_lines_with(r.err, "pai-launch: done: exit code 0 [") == 1);
  CHECK(count_lines_with(slurp(dir / "logs/worker-0/events.jsonl"),
                         "\"event\":\"launcher-started\"") == 1);
}

TEST_CASE("the default log directory is <output>/logs") {
  TempDir dir;
  auto plan = local_plan("run-output", "echo hi");
  plan.output = dir / "out";
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--node-rank", "0"});
  CHECK(r.code == 0);
  CHECK(slurp(dir / "out/logs/worker-0/rank-0.attempt-0.log") == "hi\n");
  // Logs may hold what ranks print of their env: other users cannot enter the folders.
  for (const std::string folder : {"out/logs", "out/logs/worker-0"}) {
    struct stat st {};
    REQUIRE(::stat((dir / folder).c_str(), &st) == 0);
    CHECK((st.st_mode & 0007) == 0);
  }
}

TEST_CASE("a missing plan is a clear error - exit 2") {
  TempDir dir;
  const std::string path = dir / "nope.json";
  auto r = run_launcher(dir, {"run", "--plan", path});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "pai-launch: error: " + path + ": cannot read the plan file: No such file or directory\n");
}

TEST_CASE("truncated - tampered and future-version plans are refused") {
  TempDir dir;
  const std::string path = write_plan(dir, local_plan("run-bad", "exit 0"));
  const std::string good = slurp(path);

  spit(path, good.substr(0, good.size() / 2));
  auto truncated = run_launcher(dir, {"run", "--plan", path});
  CHECK(truncated.code == 2);
  CHECK(truncated.err.rfind("pai-launch: error: " + path + ": invalid JSON: ", 0) == 0);

  spit(path, replace_once(good, "\"name\": \"run-bad\"", "\"name\": \"run-evil\""));
  auto tampered = run_launcher(dir, {"run", "--plan", path});
  CHECK(tampered.code == 2);
  CHECK(tampered.err == "pai-launch: error: " + path +
                            ": hash mismatch: the plan was modified after it was written; "
                            "recompile with pai-compile\n");

  spit(path, replace_once(good, "\"planVersion\": 2", "\"planVersion\": 99"));
  auto future = run_launcher(dir, {"run", "--plan", path});
  CHECK(future.code == 2);
  CHECK(future.err ==
        "pai-launch: error: " + path +
            ": planVersion 99 is newer than this pai-launch understands (2); upgrade pai-launch\n");

  spit(path, replace_once(good, "\"planVersion\": 2", "\"planVersion\": 1"));
  auto old = run_launcher(dir, {"run", "--plan", path});
  CHECK(old.code == 2);
  CHECK(old.err == "pai-launch: error: " + path +
                       ": planVersion 1 is older than this pai-launch accepts (2 or newer); "
                       "recompile the job with pai-compile\n");
}

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";

// `text` (a plan.json) with its first role's command replaced by `command` and resealed with
// a plain sha256, as anyone can without the token.
std::string edit_and_rehash(const std::string& text, const std::string& command) {
  nlohmann::json document = nlohmann::json::parse(text);
  document["roles"][0]["command"] = nlohmann::json{"/bin/sh", "-c", command};
  document["roles"][0]["launchArgv"] = document["roles"][0]["command"];
  document.erase("hash");
  document["hash"] = pai::digest_seal(document.dump(2));
  return document.dump(2) + "\n";
}

}  // namespace

TEST_CASE("an edited plan whose sha256 seal was recomputed is refused where the token is") {
  TempDir dir;
  const std::string path = write_sealed_plan(dir, local_plan("run-edited", "exit 0"), kToken);
  const std::string evil = "touch " + dir.path() + "/started";
  spit(path, edit_and_rehash(slurp(path), evil));
  // job.token beside the plan, or --token-file: either way the token is there.
  for (const std::vector<std::string>& token_args :
       {std::vector<std::string>{}, std::vector<std::string>{"--token-file", dir / "job.token"}}) {
    std::vector<std::string> args = {"run", "--plan", path, "--log-dir", dir / "logs"};
    args.insert(args.end(), token_args.begin(), token_args.end());
    auto r = run_launcher(dir, args);
    CHECK(r.code == 2);
    CHECK(r.err == "pai-launch: error: " + path +
                       ": the plan has an unkeyed sha256 seal, but a job token is present (" +
                       dir.path() +
                       "/job.token): pai-compile seals with the token, so the seal was replaced "
                       "(the plan was edited); recompile with pai-compile\n");
  }
  CHECK_FALSE(std::filesystem::exists(dir / "started"));

  // The edit alone, its keyed seal left as it was.
  const std::string sealed =
      slurp(write_sealed_plan(dir, local_plan("run-edited", "exit 0"), kToken));
  spit(path, replace_once(sealed, "\"exit 0\"", "\"" + evil + "\""));
  auto edited = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  CHECK(edited.code == 2);
  CHECK(edited.err == "pai-launch: error: " + path +
                          ": the plan's seal does not verify with the job token " + dir.path() +
                          "/job.token: the plan was edited after pai-compile wrote it, or "
                          "compiled with another token; recompile with pai-compile\n");
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a plan sealed with another token is refused") {
  TempDir dir;
  const std::string path =
      write_sealed_plan(dir, local_plan("run-other-token", "touch " + dir.path() + "/started"),
                        "fedcba9876543210fedcba9876543210");
  spit(dir / "job.token", kToken + "\n");  // the token of another compile
  auto r = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  CHECK(r.code == 2);
  CHECK(r.err == "pai-launch: error: " + path +
                     ": the plan's seal does not verify with the job token " + dir.path() +
                     "/job.token: the plan was edited after pai-compile wrote it, or compiled "
                     "with another token; recompile with pai-compile\n");
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a one-node plan runs with its token - and without one only when unkeyed") {
  TempDir dir;
  const std::string path =
      write_sealed_plan(dir, local_plan("run-sealed", "touch " + dir.path() + "/started"), kToken);
  auto with_token = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  CHECK(with_token.code == 0);
  CHECK(std::filesystem::exists(dir / "started"));

  std::filesystem::remove(dir / "started");
  std::filesystem::remove(dir / "job.token");
  auto without = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  CHECK(without.code == 2);
  CHECK(without.err == "pai-launch: error: " + path +
                           ": the plan is sealed with its job token, which was not found: keep "
                           "job.token next to plan.json or pass --token-file\n");
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a node that is not in the plan is refused before anything starts") {
  TempDir dir;
  const std::string path =
      write_plan(dir, local_plan("run-node", "touch " + dir.path() + "/started"));
  auto by_name = run_launcher(dir, {"run", "--plan", path, "--node", "gpu-042"});
  CHECK(by_name.code == 2);
  CHECK(count_lines_with(
            by_name.err,
            "pai-launch: error: node 'gpu-042' is not in the plan (hosts: localhost)") == 1);
  auto by_rank = run_launcher(dir, {"run", "--plan", path, "--node-rank", "3"});
  CHECK(by_rank.code == 2);
  CHECK(count_lines_with(
            by_rank.err,
            "pai-launch: error: --node-rank 3 is out of range: the plan has 1 instances (0..0)") ==
        1);
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a plan whose node name cannot name its control folder is refused") {
  // pai-compile never writes such a name; a hand-made plan could.
  for (const std::string name : {"..", ".", "a/b"}) {
    TempDir dir;
    auto plan = local_plan("run-bad-node-name", "touch " + dir.path() + "/started");
    plan.hosts[0].name = name;
    place(plan, plan.hosts);
    const std::string path = write_plan(dir, plan);
    auto r = run_launcher(dir, {"run", "--plan", path, "--node-rank", "0"});
    CHECK(r.code == 2);
    CHECK(count_lines_with(r.err, "cannot name a folder") == 1);
    CHECK_FALSE(std::filesystem::exists(dir / "started"));
  }
}

TEST_CASE("an unwritable log directory is reported before any process starts") {
  TempDir dir;
  spit(dir / "file", "");
  const std::string path =
      write_plan(dir, local_plan("run-logdir", "touch " + dir.path() + "/started"));
  auto r = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "file/logs"});
  CHECK(r.code == 2);
  CHECK(count_lines_with(r.err, "pai-launch: error: cannot write logs to " + dir.path() +
                                    "/file/logs: Not a directory") == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a journal that cannot be written at start is a clean exit 2") {
  TempDir dir;
  const std::string path =
      write_plan(dir, local_plan("run-journal-full", "touch " + dir.path() + "/started"));
  // A full disk: every write to /dev/full fails with ENOSPC.
  std::filesystem::create_directories(dir / "logs/worker-0");
  REQUIRE(::symlink("/dev/full", (dir / "logs/worker-0/events.jsonl").c_str()) == 0);
  auto r = run_launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  CHECK(r.code == 2);
  CHECK(count_lines_with(r.err, "pai-launch: error: cannot write logs to " + dir.path() +
                                    "/logs: the journal " + dir.path() +
                                    "/logs/worker-0/events.jsonl cannot be written (is the "
                                    "disk full?)") == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a journal that fills up during the job never ends it") {
  TempDir dir;
  // Journal-only records: each hang-interval request is one line in events.jsonl.
  const std::string path = write_plan(
      dir,
      local_plan("run-journal-fills", "i=0; while [ $i -lt 40 ]; do " + kLauncher +
                                          " ctl hang-interval 60 || exit 9; i=$((i+1)); done"));
  Launcher launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  // The launcher's files may grow to 1,500 bytes: its terminal lines fit, its journal not.
  const rlimit limit{1500, 1500};
  REQUIRE(::prlimit(launcher.pid(), RLIMIT_FSIZE, &limit, nullptr) == 0);
  CHECK(launcher.wait() == 0);
  const std::string err = launcher.err();
  INFO(err);
  CHECK(count_lines_with(err, "pai-launch: warning: cannot write the journal " + dir.path() +
                                  "/logs/worker-0/events.jsonl: File too large; the job goes "
                                  "on, the journal is incomplete from here") == 1);
  CHECK(count_lines_with(err, "is incomplete: ") == 1);
  CHECK(count_lines_with(err, "pai-launch: done: exit code 0") == 1);
  const std::string journal = slurp(dir / "logs/worker-0/events.jsonl");
  CHECK(journal.size() <= 1500);
  CHECK(journal.back() == '\n');
}

TEST_CASE("a rank log that cannot be created at a restart is a warning - the rank runs") {
  TempDir dir;
  // Attempt 0 takes its instance's log folder away (as a file system gone read-only or
  // unmounted would) and fails; attempt 1 cannot create its log, runs all the same and
  // succeeds. The journal was open before and stays with the folder that was moved.
  const std::string logs = dir / "logs";
  pai::Plan plan =
      local_plan("run-log-gone", "if [ \"$PAI_RESTART_COUNT\" = 0 ]; then mv " + logs +
                                     "/worker-0 " + logs + "/moved && ln -s /nonexistent/pai " +
                                     logs + "/worker-0 && exit 1; fi; echo second attempt; exit 0");
  plan.fault_tolerance.max_restarts = 1;
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", logs});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(count_lines_with(r.err, "pai-launch: warning: cannot write " + logs +
                                    "/worker-0/rank-0.attempt-1.log: No such file or directory; "
                                    "worker-0 rank 0 runs with its output on the terminal "
                                    "only") == 1);
  CHECK(count_lines_with(r.out, "second attempt") == 1);
  CHECK(count_lines_with(r.err, "cannot execute") == 0);
  const std::string journal = slurp(logs + "/moved/events.jsonl");
  CHECK(count_lines_with(journal, "\"logError\":\"cannot write " + logs +
                                      "/worker-0/rank-0.attempt-1.log: No such file or "
                                      "directory\"") == 1);
}

TEST_CASE("a rank's log stays within logs.maxBytes - the newest output kept, the rest counted") {
  TempDir dir;
  pai::Plan plan =
      local_plan("run-log-bound", "yes pai-log-line | head -c 8000000; echo the-last-line");
  plan.logs.max_bytes = 1 << 20;
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  CHECK(r.code == 0);
  const std::string log = slurp(dir / "logs/worker-0/rank-0.attempt-0.log");
  const std::string older = slurp(dir / "logs/worker-0/rank-0.attempt-0.log.1");
  // Each part at most half the bound, plus one read of the rank's pipe (1 MiB).
  CHECK(log.size() + older.size() <= (1u << 20) + 2 * (1u << 20));
  CHECK(log.ends_with("the-last-line\n"));  // head -c cut the last pai-log-line short
  // The newest output is in the two parts: the current one may hold only the last read (a
  // rotation comes before the piece that would pass half the bound, whatever its size).
  CHECK(older.find("pai-log-line\npai-log-line\n") != std::string::npos);
  CHECK(log.starts_with("pai-launch: this log reached half of logs.maxBytes (1048576 bytes)"));
  const std::string journal = slurp(dir / "logs/worker-0/events.jsonl");
  const auto at = journal.find("\"logDroppedBytes\":");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoll(journal.substr(at + 18)) >= 8000000 - 3 * (1 << 20));
}

TEST_CASE("a rank log that fills its file system is said once - the job goes on") {
  TempDir dir;
  const std::string path = write_plan(
      dir, local_plan("run-log-full", "yes pai-log-line | head -c 400000; echo the-end"));
  Launcher launcher(dir, {"run", "--plan", path, "--log-dir", dir / "logs"});
  // The launcher's files may grow to 100,000 bytes: the rank's log cannot hold its output.
  const rlimit limit{100000, 100000};
  REQUIRE(::prlimit(launcher.pid(), RLIMIT_FSIZE, &limit, nullptr) == 0);
  CHECK(launcher.wait() == 0);
  const std::string err = launcher.err();
  INFO(err);
  CHECK(count_lines_with(err, "pai-launch: error: cannot write the log " + dir.path() +
                                  "/logs/worker-0/rank-0.attempt-0.log: File too large; the "
                                  "rank's output goes on to the terminal") == 1);
  // (The test's terminal is a file under the same limit: exit 0 says the rank ran to its end.)
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log").size() <= 100000);
}

TEST_CASE("a second launcher of a running job's node is refused - the first runs on") {
  TempDir dir;
  TempDir other;
  const std::string path = write_plan(dir, local_plan("run-twice", "sleep 2; echo finished"));
  Launcher first(dir, {"run", "--plan", path, "--log-dir", dir / "logs-one"});
  REQUIRE(pai::testing::wait_for_file(dir / "logs-one/worker-0/rank-0.attempt-0.log"));
  auto second = run_launcher(other, {"run", "--plan", path, "--log-dir", dir / "logs-two"});
  CHECK(second.code == 2);
  CHECK(count_lines_with(second.err,
                         ") runs node localhost of job 'run-twice' on this machine; "
                         "it holds ") == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "logs-two/worker-0/events.jsonl"));
  CHECK(first.wait() == 0);  // neither its sockets nor its processes were taken
  CHECK(count_lines_with(first.out(), "finished") == 1);
}

TEST_CASE("a control folder others can write to is refused before any process starts") {
  TempDir dir;
  const std::string path =
      write_plan(dir, local_plan("run-open-control", "touch " + dir.path() + "/started"));
  const std::string control = std::string(pai::kLauncherRunDir) + "/run-open-control";
  ::mkdir(pai::kLauncherRunDir, 01777);
  ::mkdir(control.c_str(), 0777);
  ::chmod(control.c_str(), 0777);
  auto r = run_launcher(dir, {"run", "--plan", path});
  ::rmdir(control.c_str());
  CHECK(r.code == 2);
  CHECK(count_lines_with(r.err, "pai-launch: error: the control socket folder " + control +
                                    " is writable by group or others (mode 0777); remove it or "
                                    "chmod 700 it") == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
}

TEST_CASE("a command that does not exist exits 127 - one that cannot execute 126") {
  TempDir dir;
  auto missing = local_plan("run-missing", "");
  missing.roles[0].launch_argv = {dir / "no-such-program", "--flag"};
  auto r =
      run_launcher(dir, {"run", "--plan", write_plan(dir, missing), "--log-dir", dir / "logs"});
  CHECK(r.code == 127);
  CHECK(count_lines_with(r.err, "pai-launch: error: worker-0 rank 0: cannot run '" + dir.path() +
                                    "/no-such-program': No such file or directory") == 1);
  CHECK(count_lines_with(r.err,
                         "classification: exit code 127 (command not found): not retryable") == 1);

  auto in_path = local_plan("run-missing-path", "");
  in_path.roles[0].launch_argv = {"no-such-program-in-path"};
  auto p =
      run_launcher(dir, {"run", "--plan", write_plan(dir, in_path), "--log-dir", dir / "logs2"});
  CHECK(p.code == 127);
  CHECK(count_lines_with(p.err,
                         "pai-launch: error: worker-0 rank 0: cannot run "
                         "'no-such-program-in-path': command not found") == 1);

  auto shell = local_plan("run-missing-sh", "no-such-program-in-sh");
  auto s = run_launcher(dir, {"run", "--plan", write_plan(dir, shell), "--log-dir", dir / "logs3"});
  CHECK(s.code == 127);

  spit(dir / "not-executable", "#!/bin/sh\n");
  auto noexec = local_plan("run-noexec", "");
  noexec.roles[0].launch_argv = {dir / "not-executable"};
  auto n =
      run_launcher(dir, {"run", "--plan", write_plan(dir, noexec), "--log-dir", dir / "logs4"});
  CHECK(n.code == 126);
  CHECK(count_lines_with(n.err,
                         "pai-launch: error: worker-0 rank 0: cannot run '" + dir.path() +
                             "/not-executable': permission denied (not an executable file)") == 1);
}

TEST_CASE("the role's working directory is used") {
  TempDir dir;
  auto plan = local_plan("run-cwd", "pwd");
  plan.roles[0].working_dir = dir.path();
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  CHECK(r.code == 0);
  CHECK(slurp(dir / "logs/worker-0/rank-0.attempt-0.log") == dir.path() + "\n");
}

TEST_CASE("usage errors exit 2") {
  TempDir dir;
  CHECK(run_launcher(dir, {"run"}).code == 2);
  CHECK(run_launcher(dir, {"run", "--plan", "p", "--node", "a", "--node-rank", "1"}).code == 2);
  CHECK(run_launcher(dir, {"frobnicate"}).code == 2);
  auto token =
      run_launcher(dir, {"run", "--plan", write_plan(dir, local_plan("run-token", "exit 0")),
                         "--token-file", dir / "missing.token"});
  CHECK(token.code == 2);
  CHECK(count_lines_with(token.err, "pai-launch: error: cannot read the job token from " +
                                        dir.path() + "/missing.token: No such file or directory") ==
        1);
  // A timeout past the 365-day bound is a usage error, not an overflow of the deadline.
  auto forever =
      run_launcher(dir, {"run", "--plan", write_plan(dir, local_plan("run-forever", "exit 0")),
                         "--rendezvous-timeout", "9223372036854775807"});
  CHECK(forever.code == 2);
  CHECK(count_lines_with(forever.err,
                         "--rendezvous-timeout 9223372036854775807: duration must "
                         "be at most 365d, got \"9223372036854775807\"") == 1);
}

TEST_CASE("failing sanity checks start nothing and exit 1 - passing ones let the job run") {
  TempDir dir;
  auto plan = local_plan("run-checks", "touch " + dir.path() + "/started");
  plan.sanity_check.enabled = true;
  plan.sanity_check.checks = {};
  plan.sanity_check.custom = {pai::CustomCheck{"disk-ok", "echo broken disk; exit 3", 5}};
  auto failed =
      run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  CHECK(failed.code == 1);
  CHECK(count_lines_with(failed.err, "pai-launch: check custom:disk-ok: failed") == 1);
  CHECK(count_lines_with(
            failed.err,
            "pai-launch: error: sanity checks failed on localhost; nothing was started") == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "started"));
  CHECK(count_lines_with(slurp(dir / "logs/worker-0/events.jsonl"),
                         "\"event\":\"check\",\"name\":\"custom:disk-ok\",\"status\":\"failed\"") ==
        1);

  plan.sanity_check.custom[0].command = "exit 0";
  auto passed =
      run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  CHECK(passed.code == 0);
  CHECK(count_lines_with(passed.err, "pai-launch: sanity checks: passed [") == 1);
  CHECK(std::filesystem::exists(dir / "started"));
}

TEST_CASE("what a sanity check starts in a session of its own is gone when the check ends") {
  TempDir dir;
  auto plan = local_plan("run-check-helper", "test -e " + dir.path() + "/helper");
  plan.sanity_check.enabled = true;
  plan.sanity_check.checks = {};
  // A helper that leaves the check's process group and closes its output, as a daemon does.
  const std::string pid_file = dir / "helper";
  plan.sanity_check.custom = {pai::CustomCheck{
      "helper",
      "setsid sh -c 'echo $$ > " + pid_file + "; exec sleep 120' > /dev/null 2>&1 & while [ ! -s " +
          pid_file + " ]; do sleep 0.01; done",
      10}};
  auto r = run_launcher(dir, {"run", "--plan", write_plan(dir, plan), "--log-dir", dir / "logs"});
  CHECK(r.code == 0);
  const pid_t helper = std::stoi(slurp(pid_file));
  REQUIRE(helper > 0);
  const bool gone = process_gone_or_killed(helper, 2);
  if (pai::launcher::cgroup_support().unavailable.empty()) {
    CHECK(gone);
  } else {
    // Without cgroup v2 the check's process group alone holds it, and the launcher says so.
    CHECK(count_lines_with(r.err,
                           "pai-launch: sanity checks: warning: no cgroup v2 "
                           "containment (") == 1);
  }
}

TEST_CASE("without cgroup v2 a check's children have their process groups - said once") {
  // A mount namespace without the cgroup2 file system, as on a host that has none.
  if (::geteuid() != 0 || std::system("unshare --mount true 2>/dev/null") != 0) {
    WARN("skipped: needs root and unshare --mount to hide the cgroup2 file system");
    return;
  }
  TempDir dir;
  auto plan = local_plan("run-check-no-cgroup", "true");
  plan.sanity_check.enabled = true;
  plan.sanity_check.checks = {};
  plan.sanity_check.custom = {pai::CustomCheck{"quick", "echo fine", 10}};
  const std::string command =
      "unshare --mount --propagation private sh -c 'umount -a -l -t cgroup2 && exec " + kLauncher +
      " run --plan " + write_plan(dir, plan) + " --log-dir " + dir / "logs" + "' > " + dir / "out" +
      " 2> " + dir / "err";
  const int status = std::system(command.c_str());
  const std::string err = slurp(dir / "err");
  INFO(err);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(count_lines_with(err,
                         "pai-launch: sanity checks: warning: no cgroup v2 containment (no "
                         "cgroup2 file system is mounted): processes are held by process "
                         "groups only") == 1);
  CHECK(count_lines_with(err, "pai-launch: check custom:quick: passed") == 1);
}

}  // namespace run_command_test
