// End to end: `pai-launch status|run|logs|kill|stop|start|checkpoint-now` against the real
// coordinator of a running two-node job (two pai-launch processes on 127.120.0.1 and 127.120.0.2).
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "launcher/multi_node/cluster_harness.h"
#include "launcher/os/cgroup.h"

namespace job_control_test {

using nlohmann::json;
using pai::testing::eventually;
using pai::testing::Launcher;
using pai::testing::run_launcher;
using pai::testing::TempDir;

namespace {

// Starts `pai-launch ARGS` (a `logs --follow`), lets the ranks finish (creates `finish`), and
// returns its stdout and stderr once the job and it ended, each with exit code 0.
std::pair<std::string, std::string> follow_to_the_end(pai::testing::Cluster& cluster,
                                                      const std::string& finish,
                                                      std::vector<std::string> args) {
  TempDir dir;
  Launcher follower(dir, std::move(args));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  pai::testing::spit(finish, "");
  const auto codes = cluster.wait_all(30);
  INFO(cluster.transcript());
  for (const auto& [node, code] : codes) CHECK(code == 0);
  CHECK(follower.wait(30) == 0);
  return {follower.out(), follower.err()};
}

}  // namespace

TEST_CASE("control commands drive a running two-node job") {
  TempDir scratch;  // the finish file and the control commands' output files
  // Each rank says it is up, then waits for the test's `finish` file.
  pai::Plan plan = pai::testing::cluster_plan("control-e2e", 120, 2, 0,
                                              "echo \"rank $RANK up, restart $PAI_RESTART_COUNT\"\n"
                                              "while [ ! -e " +
                                                  scratch / "finish" +
                                                  " ]; do sleep 0.05; done\n"
                                                  "echo \"rank $RANK done\"\n");
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  pai::testing::Cluster cluster(plan);
  cluster.start_all();
  const std::string plan_path = cluster.dir() / "plan.json";

  auto control = [&](std::vector<std::string> args) {
    return run_launcher(scratch, std::move(args), 30);
  };
  auto status = [&]() -> json {
    auto r = control({"status", "--plan", plan_path, "--json"});
    return r.code == 0 ? json::parse(r.out) : json();
  };
  auto all_running = [&](const json& s) {
    if (!s.is_object() || s.value("phase", "") != "running") return false;
    for (const json& node : s["nodes"]) {
      if (node["state"] != "running") return false;
    }
    return true;
  };
  REQUIRE(eventually([&] { return all_running(status()); }));

  // The ETTR so far, from both launchers' journals in the shared log folder (read every five
  // heartbeat intervals: 1 s here).
  json with_ettr;
  REQUIRE(eventually([&] {
    with_ettr = status();
    return with_ettr.is_object() && with_ettr.value("goodputJournals", 0) == 2;
  }));
  CHECK(with_ettr.at("ettrBasisPoints").get<int>() >= 0);
  CHECK(with_ettr.at("ettrBasisPoints").get<int>() <= 10000);

  auto table = control({"status", "--plan", plan_path});
  CHECK(table.code == 0);
  CHECK(table.out.rfind("job control-e2e: running, ETTR so far ", 0) == 0);
  CHECK(table.out.find("% (2 launchers' journals)\nNODE    ADDRESS      INSTANCE  RANKS") !=
        std::string::npos);
  CHECK(pai::testing::count_lines_with(table.out,
                                       "node-2  127.120.0.2  worker-1  1      running") == 1);

  // Each running rank's pid and CPU time as its cgroup counted them, from the nodes' heartbeats.
  if (pai::launcher::cgroup_support().unavailable.empty()) {
    json usage;
    REQUIRE(eventually([&] {
      const json s = status();
      if (!s.is_object()) return false;
      usage = s["nodes"][1].value("usage", json());
      return usage.is_array();
    }));
    REQUIRE(usage.size() == 1);
    CHECK(usage[0]["rank"] == 1);
    CHECK(usage[0]["cpuMs"].get<std::int64_t>() >= 0);
    const int pid = usage[0]["pid"].get<int>();
    CHECK(pai::testing::slurp("/proc/" + std::to_string(pid) + "/environ").find("RANK=1") !=
          std::string::npos);
    const auto ranks = control({"status", "--plan", plan_path});
    CHECK(pai::testing::count_lines_with(ranks.out, "RANK  NODE    PID") == 1);
    CHECK(pai::testing::count_lines_with(ranks.out, "1     node-2  " + std::to_string(pid)) == 1);
  } else {
    WARN("cgroup v2 not usable here: no per-rank figures to check");
  }

  auto run = control({"run", "--plan", plan_path, "--", "sh", "-c", "echo hello; echo warn >&2"});
  CHECK(run.code == 0);
  CHECK(pai::testing::count_lines_with(run.out, "] hello") == 2);
  CHECK(pai::testing::count_lines_with(run.out, "[node-1] hello") == 1);
  CHECK(pai::testing::count_lines_with(run.err, "[node-2] warn") == 1);
  run = control({"run", "--plan", plan_path, "--", "sh", "-c", "exit 5"});
  CHECK(run.code == 5);
  CHECK(pai::testing::count_lines_with(run.err, "pai-launch run: node-2: exit code 5") == 1);

  auto logs = control({"logs", "--plan", plan_path});
  CHECK(logs.code == 0);
  CHECK(pai::testing::count_lines_with(logs.out, "[worker-0/0] rank 0 up, restart 0") == 1);
  CHECK(pai::testing::count_lines_with(logs.out, "[worker-1/1] rank 1 up, restart 0") == 1);

  // A killed instance is a failure: the job restarts (sync mode: every instance).
  auto kill = control({"kill", "--plan", plan_path, "worker-1"});
  CHECK(kill.code == 0);
  CHECK(kill.out == "killing worker-1 on node-2\n");
  CHECK(eventually([&] {
    const json s = status();
    return all_running(s) && s["nodes"][1]["restarts"] == 1;
  }));
  auto unknown = control({"kill", "--plan", plan_path, "worker-9"});
  CHECK(unknown.code == 1);
  CHECK(unknown.err == "pai-launch kill: no instance named \"worker-9\" in the job\n");

  auto stop = control({"stop", "--plan", plan_path});
  CHECK(stop.code == 0);
  CHECK(eventually([&] { return status().value("phase", "") == "paused"; }));
  auto start = control({"start", "--plan", plan_path});
  CHECK(start.code == 0);
  CHECK(eventually([&] { return all_running(status()); }));
  // The resume is attempt 2 (after restart 1): its own log and PAI_RESTART_COUNT, while the
  // restart budget stays as the kill left it.
  CHECK(eventually([&] {
    return pai::testing::count_lines_with(control({"logs", "--plan", plan_path}).out,
                                          "[worker-1/1] rank 1 up, restart 2") == 1;
  }));
  CHECK(status()["nodes"][1]["restarts"] == 1);
  CHECK(pai::testing::slurp(cluster.dir() / "logs/worker-1/rank-1.attempt-1.log")
            .find("rank 1 up, restart 1") != std::string::npos);

  // A follower sees the ranks finish and ends with the job.
  const auto [out, err] = follow_to_the_end(
      cluster, scratch / "finish",
      {"logs", "--plan", plan_path, "--follow", "--rank", "0", "--tail", "0"});
  CHECK(out == "rank 0 done\n");
  CHECK(err == "pai-launch logs: the coordinator closed the connection: the job is over\n");

  // The job is over: status and logs read its log folder, the plan's.
  auto late = control({"status", "--plan", plan_path});
  INFO(late.err);
  CHECK(late.code == 0);
  CHECK(late.out.rfind("the job ended: succeeded, exit code 0: the job succeeded after 1 restart",
                       0) == 0);
  auto read = control({"logs", "--plan", plan_path, "--rank", "1"});
  CHECK(read.code == 0);
  INFO(read.out + read.err);
  CHECK(read.out.find("rank 1 up, restart") != std::string::npos);
  // Commands that act on the job say where its coordinator was expected.
  auto lost = control({"stop", "--plan", plan_path});
  CHECK(lost.code == 1);
  CHECK(lost.err.find("is the job running? the coordinator of job control-e2e is expected at "
                      "127.120.0.1:") != std::string::npos);
  CHECK(pai::testing::leftover_processes("control-e2e").empty());
}

TEST_CASE("logs --tail starts at a line - --merge prints the ranks' identical lines once") {
  TempDir scratch;
  // Each rank writes five lines of its own, one both write, and a line still unfinished; at
  // the finish file, one more line both write.
  pai::Plan plan = pai::testing::cluster_plan(
      "logs-e2e", 125, 2, 0,
      "for i in 1 2 3 4 5; do echo \"rank $RANK line $i\"; done\n"
      "echo 'epoch 1 done'\n"
      "printf 'progress 50%%'\n"
      "while [ ! -e " + scratch / "finish" + " ]; do sleep 0.05; done\n"
      "echo; echo 'all done'\n");
  pai::testing::Cluster cluster(plan);
  cluster.start_all();
  const std::string plan_path = cluster.dir() / "plan.json";
  auto control = [&](std::vector<std::string> args) {
    return run_launcher(scratch, std::move(args), 30);
  };
  auto logs = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"logs", "--plan", plan_path});
    return control(std::move(args));
  };
  REQUIRE(eventually([&] {
    return pai::testing::count_lines_with(logs({}).out, "progress 50%") == 2;
  }));

  // The last two lines of each rank, the unfinished one included: never a piece of a line.
  auto tail = logs({"--tail", "2", "--rank", "1"});
  CHECK(tail.code == 0);
  CHECK(tail.out == "epoch 1 done\nprogress 50%");
  tail = logs({"--tail", "2"});
  CHECK(tail.code == 0);
  CHECK(pai::testing::count_lines_with(tail.out, "line") == 0);
  CHECK(pai::testing::count_lines_with(tail.out, "[worker-0/0] epoch 1 done") == 1);
  CHECK(pai::testing::count_lines_with(tail.out, "[worker-1/1] progress 50%") == 1);

  auto merged = logs({"--merge", "--tail", "3"});
  CHECK(merged.code == 0);
  // In the order the groups started, which depends on which node answered first.
  CHECK(std::count(merged.out.begin(), merged.out.end(), '\n') == 4);
  for (const char* line : {"[node-1:0] rank 0 line 5", "[node-2:1] rank 1 line 5",
                           "[node-1:0,node-2:1] epoch 1 done",
                           "[node-1:0,node-2:1] progress 50%"}) {
    CHECK(pai::testing::count_lines_with(merged.out, line) == 1);
  }

  // Following: the line both ranks print at the end comes once.
  const std::string followed =
      follow_to_the_end(cluster, scratch / "finish",
                        {"logs", "--plan", plan_path, "--follow", "--merge", "--tail", "0"})
          .first;
  CHECK(pai::testing::count_lines_with(followed, "[node-1:0,node-2:1] all done") == 1);
  CHECK(pai::testing::count_lines_with(followed, "all done") == 1);
  CHECK(pai::testing::leftover_processes("logs-e2e").empty());
}

namespace {

// A two-node job whose ranks run until stopped, all running; `subnet` as cluster_plan's.
void start_running(pai::testing::Cluster& cluster) {
  cluster.start_all();
  const std::string plan_path = cluster.dir() / "plan.json";
  TempDir scratch;
  std::string last_status;
  const bool running = eventually([&] {
    auto r = run_launcher(scratch, {"status", "--plan", plan_path, "--json"}, 30);
    last_status = r.out + r.err;
    if (r.code != 0) return false;
    const json s = json::parse(r.out);
    if (s.value("phase", "") != "running") return false;
    for (const json& node : s["nodes"]) {
      if (node["state"] != "running") return false;
    }
    return true;
  });
  INFO("the last status: " << last_status);
  INFO(cluster.transcript());
  REQUIRE(running);
}

// Every launcher exited `code` and journaled the cancel; no restart, no failure, nothing left.
void expect_cancelled(pai::testing::Cluster& cluster, int code, const std::string& job) {
  const auto codes = cluster.wait_all(30);
  INFO(cluster.transcript());
  for (const auto& [node, exit_code] : codes) CHECK(exit_code == code);
  for (const char* instance : {"worker-0", "worker-1"}) {
    const std::string journal =
        pai::testing::slurp(cluster.dir() / ("logs/" + std::string(instance) + "/events.jsonl"));
    CHECK(pai::testing::count_lines_with(journal, "\"event\":\"job-cancelled\"") == 1);
    CHECK(pai::testing::count_lines_with(journal, "\"event\":\"job-failed\"") == 0);
  }
  const std::string coordinator =
      pai::testing::slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  CHECK(pai::testing::count_lines_with(coordinator, "\"event\":\"job-cancelled\"") == 1);
  CHECK(pai::testing::count_lines_with(coordinator, "\"event\":\"restart\"") == 0);
  CHECK(pai::testing::count_lines_with(coordinator, "node-lost") == 0);
  CHECK(pai::testing::leftover_processes(job).empty());
}

}  // namespace

TEST_CASE("pai-launch cancel ends every node of the job with 143 - nothing restarts") {
  pai::Plan plan = pai::testing::cluster_plan("cancel-e2e", 121, 2, 0, "exec sleep 60");
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  pai::testing::Cluster cluster(plan);
  start_running(cluster);
  TempDir scratch;
  auto cancel = run_launcher(scratch, {"cancel", "--plan", cluster.dir() / "plan.json"}, 30);
  CHECK(cancel.code == 0);
  CHECK(cancel.out == "cancelling the job\n");
  expect_cancelled(cluster, 143, "cancel-e2e");
}

TEST_CASE(
    "checkpoint-now reaches every rank's checkpoint-advice - not the ranks of a later attempt") {
  // Attempt 0: each rank steps the SDK's should_checkpoint (its advice asked every 0.2 s over
  // one kept connection: a `pai-launch ctl` per poll starved a sanitizer build) until it is
  // True, says so, and once both ranks have, fails. Attempt 1: each rank asks `ctl` once.
  TempDir marks;
  const std::string rank_py = marks / "rank.py";
  pai::testing::spit(
      rank_py,
      "import os, sys, time\n"
      "from pai import job_monitor as jm\n"
      "jm.ADVICE_PERIOD_S = 0.2\n"
      "monitor = jm.Monitor()\n"
      "step = 0\n"
      "while not monitor.should_checkpoint(step):\n"
      "    step += 1\n"
      "    time.sleep(0.05)\n"
      "print('should_checkpoint: True, interval %g' % monitor._checkpoint_interval)\n"
      "sys.stdout.flush()\n"
      "open(sys.argv[1] + '/asked-' + os.environ['RANK'], 'w').close()\n"
      "while not all(os.path.exists(sys.argv[1] + '/asked-%d' % r) for r in (0, 1)):\n"
      "    time.sleep(0.05)\n"
      "sys.exit(1)\n");
  pai::Plan plan = pai::testing::cluster_plan("advice-e2e", 126, 2, 0,
                                              "if [ \"$PAI_RESTART_COUNT\" = 1 ]; then\n"
                                              "  echo \"again: $(" +
                                                  pai::testing::kLauncher +
                                                  " ctl checkpoint-advice)\"; exit 0\n"
                                                  "fi\n"
                                                  "PYTHONPATH=" PAI_SOURCE_DIR
                                                  "/sdk/python exec /usr/bin/python3 " +
                                                  rank_py + " " + marks.path() + "\n");
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  plan.fault_tolerance.backoff_seconds = 0;
  plan.fault_tolerance.checkpoint_plan.interval_seconds = 4342;
  pai::testing::Cluster cluster(plan);
  start_running(cluster);
  TempDir scratch;
  auto now = run_launcher(scratch, {"checkpoint-now", "--plan", cluster.dir() / "plan.json"}, 30);
  CHECK(now.code == 0);
  CHECK(now.out ==
        "checkpoint 1 requested from 2 running instances: their ranks' should_checkpoint() "
        "answers True at their next step\n");
  const auto codes = cluster.wait_all(30);
  INFO(cluster.transcript());
  for (const auto& [node, code] : codes) CHECK(code == 0);
  for (const char* rank : {"worker-0/rank-0", "worker-1/rank-1"}) {
    const std::string logs = cluster.dir() / ("logs/" + std::string(rank));
    CHECK(pai::testing::slurp(logs + ".attempt-0.log") ==
          "should_checkpoint: True, interval 4342\n");
    CHECK(pai::testing::slurp(logs + ".attempt-1.log") == "again: interval=4342 request=0\n");
  }
  const std::string coordinator =
      pai::testing::slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  CHECK(pai::testing::count_lines_with(coordinator,
                                       "\"event\":\"checkpoint-requested\",\"by\":\"") == 1);
  CHECK(pai::testing::leftover_processes("advice-e2e").empty());
}

TEST_CASE("status shows the steps and step rate the ranks' telemetry rings report") {
  TempDir scratch;
  const std::string finish = scratch / "finish";
  // Each rank steps every 20 ms through the SDK's ring (standard library only) until `finish`.
  pai::testing::spit(scratch / "steps.py",
                     "import os, sys, time\n"
                     "from pai import telemetry\n"
                     "ring = telemetry.ring()\n"
                     "step = 0\n"
                     "while not os.path.exists(sys.argv[1]):\n"
                     "    ring.step_begin(step)\n"
                     "    time.sleep(0.02)\n"
                     "    ring.step_end(step)\n"
                     "    step += 1\n");
  pai::Plan plan =
      pai::testing::cluster_plan("status-steps", 178, 2, 0,
                                 "PYTHONPATH=" PAI_SOURCE_DIR "/sdk/python exec /usr/bin/python3 " +
                                     scratch / "steps.py" + " " + finish);
  pai::testing::Cluster cluster(plan);
  start_running(cluster);
  const std::string plan_path = cluster.dir() / "plan.json";
  // Both ranks' telemetry arrives with their launchers' heartbeats.
  json nodes;
  CHECK(eventually([&] {
    auto r = run_launcher(scratch, {"status", "--plan", plan_path, "--json"}, 30);
    if (r.code != 0) return false;
    nodes = json::parse(r.out)["nodes"];
    for (const json& node : nodes) {
      const json t = node.value("telemetry", json::array());
      if (t.size() != 1 || t[0]["step"].get<std::int64_t>() < 5 || t[0]["steps"] == 0) {
        return false;
      }
    }
    return true;
  }));
  INFO(nodes.dump());
  for (const json& node : nodes) {
    CHECK(node["attempt"] == 0);
    CHECK(node["elapsedMs"].get<std::int64_t>() > 0);
  }
  auto table = run_launcher(scratch, {"status", "--plan", plan_path}, 30);
  INFO(table.out);
  CHECK(table.code == 0);
  CHECK(pai::testing::count_lines_with(table.out, "RANK  NODE    PID") == 1);
  // "<rank> node-<n> <pid or -> running 0 <step> <rate>/s <elapsed> ..."
  for (const std::string rank : {"0", "1"}) {
    const std::string node = rank == "0" ? "node-1" : "node-2";
    bool shown = false;
    std::istringstream lines(table.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream cells(line);
      std::string r, n, pid, state, attempt, step, rate;
      cells >> r >> n >> pid >> state >> attempt >> step >> rate;
      if (r != rank || n != node) continue;
      shown = state == "running" && attempt == "0" && std::stoll(step) >= 5 && rate.size() > 2 &&
              rate.substr(rate.size() - 2) == "/s" && std::stod(rate) > 0;
    }
    CHECK(shown);
  }
  pai::testing::spit(finish, "");
  const auto codes = cluster.wait_all(30);
  INFO(cluster.transcript());
  for (const auto& [name, code] : codes) CHECK(code == 0);
}

// Runs `command` in a detached tmux session of its own (a real terminal, 120x40); the
// session ends with the test.
class TmuxSession {
 public:
  explicit TmuxSession(const std::string& command) {
    REQUIRE(command.find('\'') == std::string::npos);
    REQUIRE(std::system(("tmux -L " + socket_ + " new-session -d -s watch -x 120 -y 40 '" +
                         command + "'")
                            .c_str()) == 0);
  }
  ~TmuxSession() { std::system(("tmux -L " + socket_ + " kill-server 2>/dev/null").c_str()); }
  // The visible screen, as text.
  std::string screen() const {
    TempDir dir;
    const std::string file = dir / "screen";
    if (std::system(("tmux -L " + socket_ + " capture-pane -p -t watch > " + file).c_str()) != 0)
      return "";
    return pai::testing::slurp(file);
  }

 private:
  std::string socket_ = "pai-test-" + std::to_string(::getpid());
};

TEST_CASE(
    "status --watch redraws the table in place on a terminal until the job ends - and says how") {
  if (std::system("command -v tmux > /dev/null") != 0) {
    WARN("tmux is not installed: the terminal could not be checked");
    return;
  }
  TempDir scratch;
  pai::Plan plan = pai::testing::cluster_plan(
      "watch-e2e", 123, 2, 0,
      "while [ ! -e " + scratch / "finish" + " ]; do sleep 0.05; done\n");
  pai::testing::Cluster cluster(plan);
  start_running(cluster);
  // The exit code is kept on the screen after the command ends.
  TmuxSession tmux(pai::testing::kLauncher + " status --watch --interval 0.2 --plan " +
                   (cluster.dir() / "plan.json") + "; echo \"watch exited $?\"; sleep 60");
  std::string first;
  REQUIRE(eventually([&] {
    first = tmux.screen();
    return first.find("node-2  127.123.0.2  worker-1") != std::string::npos;
  }));
  INFO(first);
  CHECK(first.rfind("every 0.2s: pai-launch status  ", 0) == 0);
  // Refreshed in place: the clock changes, the table is on the screen once.
  std::string later;
  CHECK(eventually([&] {
    later = tmux.screen();
    return later.substr(0, later.find('\n')) != first.substr(0, first.find('\n'));
  }, 5));
  CHECK(pai::testing::count_lines_with(later, "job watch-e2e: running") == 1);
  CHECK(pai::testing::count_lines_with(later, "NODE    ADDRESS") == 1);
  // The job ends: the watch shows its last answer and exits 0.
  pai::testing::spit(scratch / "finish", "");
  const auto codes = cluster.wait_all(30);
  for (const auto& [node, code] : codes) CHECK(code == 0);
  std::string last;
  CHECK(eventually([&] {
    last = tmux.screen();
    return last.find("watch exited") != std::string::npos;
  }, 10));
  INFO(last);
  CHECK(pai::testing::count_lines_with(last, "watch exited 0") == 1);
  CHECK(pai::testing::count_lines_with(last, "NODE    ADDRESS") == 1);
  // And how it ended: from the coordinator's last answer, or its journal once it is gone.
  CHECK(pai::testing::count_lines_with(last, "the job ended: succeeded, exit code 0") == 1);
}

TEST_CASE("SIGINT to one launcher cancels the whole job - every node exits 130") {
  pai::Plan plan = pai::testing::cluster_plan("sigint-e2e", 122, 2, 0, "exec sleep 60");
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  pai::testing::Cluster cluster(plan);
  start_running(cluster);
  ::kill(cluster.launcher("node-2").pid(), SIGINT);
  expect_cancelled(cluster, 130, "sigint-e2e");
}

TEST_CASE("the time limit cancels the job with its reason - every node exits 143 and nothing restarts") {
  pai::Plan plan = pai::testing::cluster_plan("limit-e2e", 124, 2, 0, "exec sleep 60");
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  plan.time_limit_seconds = 3;
  pai::testing::Cluster cluster(plan);
  const auto started = std::chrono::steady_clock::now();
  start_running(cluster);
  expect_cancelled(cluster, 143, "limit-e2e");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(seconds >= 3);
  CHECK(seconds < 20);
  const std::string coordinator =
      pai::testing::slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  INFO(coordinator);
  CHECK(pai::testing::count_lines_with(coordinator, "time limit 3s (timeLimit) reached") == 1);
}

}  // namespace job_control_test
