// `pai-launch torchrun` end to end with /bin/sh ranks (--no-python): the env torchrun gives,
// restarts, the error file, exit codes, the refusals, --print-spec and the `torchrun` link.
// The side-by-side runs with the real torchrun and a DDP script are torchrun_side_by_side.py.
#include "launcher/commands/torchrun_command.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "launcher/commands/torchrun_facts.h"
#include "launcher/launcher_harness.h"

namespace torchrun_command_test {

using pai::testing::Launcher;
using pai::testing::RunResult;
using pai::testing::TempDir;

namespace {

// `pai-launch torchrun --log-dir DIR/logs <args>`.
RunResult torchrun(const TempDir& dir, std::vector<std::string> args, double timeout_s = 30) {
  args.insert(args.begin(), {"torchrun", "--log-dir", dir / "logs"});
  return pai::testing::run_launcher(dir, std::move(args), timeout_s);
}

// NAME=value lines of an `env` dump.
std::map<std::string, std::string> read_env(const std::string& path) {
  std::map<std::string, std::string> env;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

// Waits up to `timeout_s` for `launcher`'s stderr to hold `text`.
bool wait_for_err(const Launcher& launcher, const std::string& text, double timeout_s = 20) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (launcher.err().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("nodes without --node-rank claim theirs - a killed claimant frees its node") {
  ::setenv("PAI_JOB_TOKEN", "claims-test-token-0123456789abcdef", 1);
  TempDir out;
  const int port = pai::launcher::free_port();
  REQUIRE(port > 0);
  const std::vector<std::string> args = {"torchrun",
                                         "--nnodes",
                                         "3",
                                         "--nproc-per-node",
                                         "1",
                                         "--rdzv-backend",
                                         "c10d",
                                         "--rdzv-endpoint",
                                         "127.0.0.1:" + std::to_string(port),
                                         "--rdzv-id",
                                         "tr-claims",
                                         "--log-dir",
                                         out / "logs",
                                         "--pai-checks",
                                         "none",
                                         "--no-python",
                                         "/bin/sh",
                                         "-c",
                                         "echo $GROUP_RANK > " + out.path() + "/group.$GROUP_RANK"};
  TempDir a_dir, b_dir, c_dir, d_dir;
  // The first launcher listens on the endpoint: node-0 and the coordinator.
  Launcher a(a_dir, args);
  REQUIRE(wait_for_err(a, "coordinator: listening"));
  // The second claims node-1 and joins; the job waits for its third node.
  Launcher b(b_dir, args);
  REQUIRE(wait_for_err(b, "this is node-1 of 3 node(s)"));
  INFO(b.err());
  REQUIRE(wait_for_err(a, "node-1"));
  // Killed before the job starts: its claim's connection closes with it, node-1 is free.
  ::kill(b.pid(), SIGKILL);
  CHECK(b.wait() == 128 + SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Two launchers more: node-1 again and node-2, as they ask; the job runs on all three.
  Launcher c(c_dir, args);
  REQUIRE(wait_for_err(c, "this is node-"));
  Launcher d(d_dir, args);
  const int d_code = d.wait(60);
  const int c_code = c.wait(60);
  const int a_code = a.wait(60);
  ::unsetenv("PAI_JOB_TOKEN");
  INFO("a:\n" << a.err() << "\nc:\n" << c.err() << "\nd:\n" << d.err());
  CHECK(a_code == 0);
  CHECK(c_code == 0);
  CHECK(d_code == 0);
  const bool c_is_1 = c.err().find("this is node-1 of 3") != std::string::npos;
  CHECK(d.err().find(c_is_1 ? "this is node-2 of 3" : "this is node-1 of 3") != std::string::npos);
  for (int group = 0; group < 3; ++group) {
    CHECK(pai::testing::slurp(out / ("group." + std::to_string(group))) ==
          std::to_string(group) + "\n");
  }
  CHECK(pai::testing::leftover_processes("tr-claims").empty());
}

TEST_CASE("a claim with no coordinator to answer gives up after join_timeout") {
  ::setenv("PAI_JOB_TOKEN", "claims-test-token-0123456789abcdef", 1);
  TempDir dir;
  // is_host=0: this launcher only asks, and nothing listens on the port.
  const int port = pai::launcher::free_port();
  const RunResult r =
      torchrun(dir, {"--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
                     "127.0.0.1:" + std::to_string(port), "--rdzv-conf", "is_host=0,join_timeout=1",
                     "--rdzv-id", "tr-noclaim", "--no-python", "/bin/true"});
  ::unsetenv("PAI_JOB_TOKEN");
  CHECK(r.code == 2);
  CHECK(r.err.find("no coordinator answered at 127.0.0.1:" + std::to_string(port) +
                   " within 1 s") != std::string::npos);
}

TEST_CASE("a rank that fails once is restarted, and each rank sees torchrun's variables") {
  TempDir dir;
  // Rank 1 fails in attempt 0; every rank of every attempt dumps its env.
  const std::string script =
      "env > " + dir.path() +
      "/env.$RANK.$TORCHELASTIC_RESTART_COUNT; "
      "if [ $RANK = 1 ] && [ $TORCHELASTIC_RESTART_COUNT = 0 ]; then exit 3; fi";
  const RunResult r =
      torchrun(dir, {"--nproc-per-node", "2", "--max-restarts", "1", "--rdzv-id", "tr-restart",
                     "--pai-checks", "none", "--no-python", "/bin/sh", "-c", script});
  INFO(r.err);
  CHECK(r.code == 0);
  const auto env = read_env(dir / "env.1.1");
  CHECK(env.at("RANK") == "1");
  CHECK(env.at("LOCAL_RANK") == "1");
  CHECK(env.at("WORLD_SIZE") == "2");
  CHECK(env.at("LOCAL_WORLD_SIZE") == "2");
  CHECK(env.at("GROUP_RANK") == "0");
  CHECK(env.at("GROUP_WORLD_SIZE") == "1");
  CHECK(env.at("ROLE_NAME") == "default");
  CHECK(env.at("ROLE_RANK") == "1");
  CHECK(env.at("ROLE_WORLD_SIZE") == "2");
  CHECK(env.at("MASTER_ADDR") == "127.0.0.1");
  CHECK(env.at("MASTER_PORT") == "29500");
  CHECK(env.at("TORCHELASTIC_RESTART_COUNT") == "1");
  CHECK(env.at("TORCHELASTIC_MAX_RESTARTS") == "1");
  CHECK(env.at("TORCHELASTIC_RUN_ID") == "tr-restart");
  CHECK(env.at("TORCHELASTIC_USE_AGENT_STORE") == "False");
  CHECK(env.at("OMP_NUM_THREADS") == "1");
  CHECK(env.at("TORCHELASTIC_ERROR_FILE").find("/logs/tr-restart_") != std::string::npos);
  CHECK(env.count("NODE_RANK") == 0);
  CHECK(env.count("NNODES") == 0);
  CHECK(pai::testing::leftover_processes("tr-restart").empty());
}

TEST_CASE("standalone makes its own token and run id - metrics when asked - the report") {
  TempDir dir;
  ::unsetenv("PAI_JOB_TOKEN");
  const int port = pai::launcher::free_port();
  REQUIRE(port > 0);
  // Each rank fetches the coordinator's metrics while the job runs.
  const std::string fetch = "import os, urllib.request; open('" + dir.path() +
                            "/metrics.' + os.environ['RANK'], 'w').write(urllib.request.urlopen("
                            "'http://127.0.0.1:" +
                            std::to_string(port) + "/metrics').read().decode())";
  const RunResult r =
      torchrun(dir, {"--standalone", "--nproc-per-node", "2", "--pai-metrics-port",
                     std::to_string(port), "--pai-metrics-linger", "0", "--pai-checks", "none",
                     "--no-python", "/usr/bin/python3", "-c", fetch});
  INFO(r.err);
  REQUIRE(r.code == 0);
  // The run id is a new UUID, and the job's name.
  const std::regex uuid(
      "job '([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})'");
  std::smatch id;
  REQUIRE(std::regex_search(r.err, id, uuid));
  const std::string metrics = pai::testing::slurp(dir / "metrics.1");
  CHECK(metrics.find("pai_job_info{pai_job=\"" + id[1].str() + "\"} 1\n") != std::string::npos);
  CHECK(metrics.find("pai_job_state{state=\"running\"} 1\n") != std::string::npos);
  CHECK(r.err.find("pai-launch: report: " + (dir / "logs") + "/" + id[1].str() + "_") !=
        std::string::npos);
}

TEST_CASE("a failed job exits 1 and shows the exception its rank recorded in the error file") {
  TempDir dir;
  // What torch's @record writes to TORCHELASTIC_ERROR_FILE.
  const std::string script =
      "if [ $RANK = 1 ]; then printf '%s' '{\"message\": {\"message\": "
      "\"ValueError: bad batch 7\", "
      "\"extraInfo\": {\"py_callstack\": \"Traceback (most recent call last):\\n  File "
      "\\\"t.py\\\"\\nValueError: bad batch 7\\n\", \"timestamp\": \"1\"}}}' > "
      "\"$TORCHELASTIC_ERROR_FILE\"; exit 1; fi";
  const RunResult r =
      torchrun(dir, {"--nproc-per-node", "2", "--rdzv-id", "tr-fail", "--pai-checks", "none",
                     "--no-python", "/bin/sh", "-c", script});
  CHECK(r.code == 1);
  CHECK(r.err.find("pai-launch:   error: ValueError: bad batch 7\n") != std::string::npos);
  CHECK(r.err.find("pai-launch:   traceback from its error file:\n"
                   "pai-launch:   | Traceback (most recent call last):\n") != std::string::npos);
}

TEST_CASE("redirects keep a stream off the console and in the log - tee shows it") {
  TempDir dir;
  const RunResult r =
      torchrun(dir, {"--nproc-per-node", "2", "--redirects", "0:1,1:3", "--tee", "1:2", "--rdzv-id",
                     "tr-redirect", "--pai-checks", "none", "--no-python", "/bin/sh", "-c",
                     "echo out-$LOCAL_RANK; echo err-$LOCAL_RANK >&2"});
  CHECK(r.code == 0);
  CHECK(r.out.find("out-0") == std::string::npos);
  CHECK(r.err.find("err-0") != std::string::npos);
  CHECK(r.out.find("out-1") == std::string::npos);
  CHECK(r.err.find("err-1") != std::string::npos);
}

TEST_CASE("a job of several nodes without a token is refused, saying how to give one") {
  TempDir dir;
  ::unsetenv("PAI_JOB_TOKEN");
  const RunResult r = torchrun(dir, {"--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
                                     "127.0.0.1:29400", "t.py"});
  CHECK(r.code == 2);
  CHECK(r.err.find("pai-launch: torchrun: error: a job of several nodes needs a job token") !=
        std::string::npos);
  CHECK(r.err.find("export PAI_JOB_TOKEN=") != std::string::npos);
  CHECK(r.err.find("--rdzv-conf token_file=FILE") != std::string::npos);
}

TEST_CASE("a token file that cannot be read is refused at --rdzv-conf - a good one runs the job") {
  TempDir dir;
  ::unsetenv("PAI_JOB_TOKEN");
  const std::vector<std::string> job = {
      "--nnodes",  "1",        "--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:0",
      "--rdzv-id", "tr-token", "--pai-checks",   "none", "--no-python",     "/bin/true"};
  std::vector<std::string> args = {"--rdzv-conf", "token_file=" + (dir / "absent.token")};
  args.insert(args.end(), job.begin(), job.end());
  RunResult r = torchrun(dir, args);
  CHECK(r.code == 2);
  CHECK(r.err.find("pai-launch: torchrun: error: --rdzv-conf token_file: cannot read the job "
                   "token from " +
                   (dir / "absent.token")) != std::string::npos);
  std::ofstream(dir / "empty.token").close();
  args[1] = "token_file=" + (dir / "empty.token");
  r = torchrun(dir, args);
  CHECK(r.code == 2);
  CHECK(r.err.find("--rdzv-conf token_file: ") != std::string::npos);
  std::ofstream(dir / "job.token") << "a-token-of-this-job-0123456789\n";
  ::chmod((dir / "job.token").c_str(), 0600);
  args[1] = "token_file=" + (dir / "job.token");
  r = torchrun(dir, args);
  INFO(r.err);
  CHECK(r.code == 0);
}

TEST_CASE("what pai cannot run is an error naming the flag, exit code 2") {
  TempDir dir;
  RunResult r = torchrun(dir, {"--rdzv-backend", "etcd", "--rdzv-endpoint", "e:2379", "t.py"});
  CHECK(r.code == 2);
  CHECK(r.err.find("pai-launch: torchrun: error: --rdzv-backend: \"etcd\" is not supported") !=
        std::string::npos);
  r = torchrun(dir, {"--role", "my role", "t.py"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--role: error: roles: role name \"my role\" must match") != std::string::npos);
  r = torchrun(dir, {"--numa-binding", "node", "t.py"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--numa-binding: not supported") != std::string::npos);
}

TEST_CASE("print-spec writes a spec pai-compile takes") {
  TempDir dir;
  const RunResult r = torchrun(dir, {"--print-spec", "--nnodes", "2:3", "--nproc-per-node", "4",
                                     "--rdzv-backend", "c10d", "--rdzv-endpoint", "10.1.2.3:29400",
                                     "--max-restarts", "2", "train.py", "--epochs", "3"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("# The job of: torchrun --log-dir") == 0);
  CHECK(r.out.find("spares:\n  - spare-0\n") != std::string::npos);
  std::ofstream(dir / "job.yaml") << r.out;
  const std::string check = PAI_BINARY_DIR "/compiler/pai-compile --check " + (dir / "job.yaml") +
                            " > " + (dir / "check.out") + " 2>&1";
  CHECK(std::system(check.c_str()) == 0);
  CHECK(pai::testing::slurp(dir / "check.out")
            .find("2 instances on 2 hosts (+1 spare), world size 8") != std::string::npos);
}

TEST_CASE("a link named torchrun to pai-launch is torchrun") {
  TempDir dir;
  std::filesystem::create_symlink(pai::testing::kLauncher, dir / "torchrun");
  const std::string command = dir / "torchrun";
  CHECK(std::system((command + " --help > " + (dir / "help") + " 2>&1").c_str()) == 0);
  CHECK(pai::testing::slurp(dir / "help").find("usage: pai-launch torchrun") == 0);
  CHECK(std::system((command + " --bogus t.py 2> " + (dir / "err")).c_str()) != 0);
  CHECK(pai::testing::slurp(dir / "err") ==
        "pai-launch: torchrun: error: --bogus: not a flag of torchrun (pai-launch torchrun "
        "--help lists them)\n");
}

}  // namespace torchrun_command_test
