// Multi-node jobs end to end: real launchers as a cluster on one machine (issue 4).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <set>

#include "launcher/multi_node/cluster_harness.h"

namespace cluster_test {

using namespace pai;
using namespace pai::testing;

TEST_CASE("three launchers rendezvous and every rank gets a unique rank and the env") {
  TempDir out;
  const std::string results = out / "ranks";
  ::mkdir(results.c_str(), 0755);
  Plan plan = cluster_plan(
      "mn-rendezvous", 101, 3, 0,
      "echo \"RANK=$RANK WORLD_SIZE=$WORLD_SIZE LOCAL_RANK=$LOCAL_RANK NODE_RANK=$NODE_RANK "
      "MASTER_ADDR=$MASTER_ADDR MASTER_PORT=$MASTER_PORT\" > " +
          results + "/rank-$RANK",
      2);
  Cluster cluster(plan);
  cluster.start_all();
  auto codes = cluster.wait_all();
  expect_all_exit(codes, 0, cluster);
  const auto names = files_in(results);
  CHECK(names == std::set<std::string>{"rank-0", "rank-1", "rank-2", "rank-3", "rank-4", "rank-5"});
  for (int r = 0; r < 6; ++r) {
    const std::string line = slurp(results + "/rank-" + std::to_string(r));
    INFO(line);
    CHECK(line.find("RANK=" + std::to_string(r) + " WORLD_SIZE=6 LOCAL_RANK=" +
                    std::to_string(r % 2) + " NODE_RANK=" + std::to_string(r / 2)) !=
          std::string::npos);
    CHECK(line.find("MASTER_ADDR=127.101.0.1 MASTER_PORT=" +
                    std::to_string(cluster.plan().master.port)) != std::string::npos);
  }
  CHECK(leftover_processes("mn-rendezvous").empty());
}

namespace {

// A job whose ranks record "<attempt>" runs in `results`/rank-R.attempt-K, and whose rank
// `victim` SIGKILLs itself on its first attempt once every rank started.
Plan restart_plan(const std::string& name, int subnet, const std::string& results, int victim,
                  FaultToleranceMode mode) {
  const std::string script =
      "touch " + results + "/rank-$RANK.attempt-$PAI_RESTART_COUNT\n"
      "if [ \"$RANK\" = " + std::to_string(victim) +
      " ] && [ \"$PAI_RESTART_COUNT\" = 0 ]; then\n"
      "  while [ $(ls " + results + " | grep -c 'attempt-0') -lt 3 ]; do sleep 0.05; done\n"
      "  kill -9 $$\n"
      "fi\n"
      "sleep 2\n";
  Plan plan = cluster_plan(name, subnet, 3, 0, script);
  plan.fault_tolerance.mode = mode;
  plan.fault_tolerance.policy = RestartPolicy::OnFailure;
  return plan;
}

}  // namespace

TEST_CASE("sync fault tolerance: a rank killed on node 2 restarts every node") {
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  Cluster cluster(restart_plan("mn-sync", 102, results, 1, FaultToleranceMode::Sync));
  cluster.start_all();
  auto codes = cluster.wait_all();
  expect_all_exit(codes, 0, cluster);
  CHECK(files_in(results) == std::set<std::string>{"rank-0.attempt-0", "rank-1.attempt-0",
                                                   "rank-2.attempt-0", "rank-0.attempt-1",
                                                   "rank-1.attempt-1", "rank-2.attempt-1"});
  CHECK(leftover_processes("mn-sync").empty());
}

TEST_CASE("async fault tolerance: a rank killed on node 2 restarts only node 2") {
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  Cluster cluster(restart_plan("mn-async", 103, results, 1, FaultToleranceMode::Async));
  cluster.start_all();
  auto codes = cluster.wait_all();
  expect_all_exit(codes, 0, cluster);
  CHECK(files_in(results) == std::set<std::string>{"rank-0.attempt-0", "rank-1.attempt-0",
                                                   "rank-2.attempt-0", "rank-1.attempt-1"});
  CHECK(leftover_processes("mn-async").empty());
}

TEST_CASE("a launcher killed with SIGKILL is noticed and its node replaced by the spare") {
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  // Attempt 0 waits to be killed; attempt 1 (after the replacement) finishes at once.
  const std::string script =
      "echo $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX > " + results +
      "/rank-$RANK.attempt-$PAI_RESTART_COUNT\n"
      "[ \"$PAI_RESTART_COUNT\" = 0 ] && exec sleep 30\n"
      "exit 0\n";
  Plan plan = cluster_plan("mn-spare", 104, 3, 1, script);
  Cluster cluster(plan);
  // job.sbatch's requeue chain passes --verdict-file to every launcher.
  const std::string verdict = out / "verdict";
  for (const char* node : {"node-1", "node-2", "node-3", "node-4"}) {
    cluster.start(node, {"--verdict-file", verdict});
  }
  REQUIRE(wait_for_file(results + "/rank-2.attempt-0", 20));
  REQUIRE(wait_for_file(results + "/rank-1.attempt-0", 20));
  REQUIRE(wait_for_file(results + "/rank-0.attempt-0", 20));
  ::kill(cluster.launcher("node-2").pid(), SIGKILL);
  CHECK(cluster.launcher("node-2").wait(5) == 128 + SIGKILL);
  std::map<std::string, int> codes;
  for (const char* node : {"node-1", "node-3", "node-4"}) {
    codes[node] = cluster.launcher(node).wait(40);
  }
  expect_all_exit(codes, 0, cluster);
  CHECK(files_in(results).count("rank-1.attempt-1") == 1);
  INFO(cluster.transcript());
  CHECK(cluster.launcher("node-4").err().find("assigned worker-1") != std::string::npos);
  // The coordinator's launcher wrote the job's verdict, which the killed launcher's exit hides
  // among every launcher's.
  CHECK(slurp(verdict) == "0\n");
  CHECK(leftover_processes("mn-spare").empty());
}

// Waits up to 30 s for the spare `node` to say its warm interpreter (preloading `heavy`) is
// ready; true once it did.
bool wait_for_standby_warm(Cluster& cluster, const std::string& node) {
  const std::string ready = "standby local rank 0: warm interpreter ready (imported heavy in ";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (cluster.launcher(node).err().find(ready) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A spare on standby starts the warm interpreters (faultTolerance.warmStart) of the instance it
// may take: when it takes node-2's, its first start forks the rank from one that imported the
// preload already, as a restart on node-2 would have.
TEST_CASE("a spare starts warm interpreters on standby: its first start is warm") {
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  spit(out / "heavy.py", "value = 1\n");
  spit(out / "rank.py",
       "import os, sys, time\n"
       "attempt = os.environ['PAI_RESTART_COUNT']\n"
       "with open(os.environ['RESULTS'] + '/rank-%s.attempt-%s' % (os.environ['RANK'], attempt),\n"
       "          'w') as f:\n"
       "    f.write('warm %s\\n' % ('heavy' in sys.modules))\n"
       "if attempt == '0':\n"
       "    time.sleep(30)\n");
  Plan plan = cluster_plan("mn-warm-spare", 198, 2, 1, "unused");
  plan.roles[0].command = {"/usr/bin/python3", out / "rank.py"};
  plan.roles[0].launch_argv = plan.roles[0].command;
  plan.roles[0].env = {{"PYTHONPATH", out.path()}, {"RESULTS", results}};
  plan.fault_tolerance.warm_start.roles = {"worker"};
  plan.fault_tolerance.warm_start.preload = {"heavy"};
  Cluster cluster(plan);
  cluster.start_all();
  REQUIRE(wait_for_file(results + "/rank-1.attempt-0", 30));
  REQUIRE(wait_for_file(results + "/rank-0.attempt-0", 30));
  wait_for_standby_warm(cluster, "node-3");
  ::kill(cluster.launcher("node-2").pid(), SIGKILL);
  CHECK(cluster.launcher("node-2").wait(5) == 128 + SIGKILL);
  std::map<std::string, int> codes;
  for (const char* node : {"node-1", "node-3"}) codes[node] = cluster.launcher(node).wait(40);
  INFO(cluster.transcript());
  expect_all_exit(codes, 0, cluster);
  CHECK(cluster.launcher("node-3").err().find("standby: starting 1 warm interpreter(s) for role "
                                              "worker (importing heavy)") != std::string::npos);
  CHECK(slurp(results + "/rank-1.attempt-0") == "warm False\n");  // node-2's first start
  CHECK(slurp(results + "/rank-1.attempt-1") == "warm True\n");   // the spare's first start
  // The spare journals where it started, as the spare it was.
  const std::string events = slurp(cluster.dir() / "logs/spare-node-3/events.jsonl");
  CHECK(count_lines_with(events, "\"warm\":true") == 1);
  CHECK(count_lines_with(events, "\"event\":\"warm-start-cold\"") == 0);
  // The standby interpreters wrote (nothing) where the spare's journal is.
  CHECK(
      std::filesystem::is_regular_file(cluster.dir() / "logs/spare-node-3/warm-interpreters.log"));
  CHECK(leftover_processes("mn-warm-spare").empty());
}

// A spare's launcher killed with SIGKILL while its warm interpreters wait on standby: they go
// with it (nothing of the job is left), the coordinator loses the spare, and the job goes on.
TEST_CASE("a spare killed with SIGKILL on standby leaves no warm interpreter - the job goes on") {
  TempDir out;
  spit(out / "heavy.py", "value = 1\n");
  spit(out / "rank.py", "import time\ntime.sleep(10)\n");
  Plan plan = cluster_plan("mn-warm-spare-kill", 199, 2, 1, "unused");
  plan.roles[0].command = {"/usr/bin/python3", out / "rank.py"};
  plan.roles[0].launch_argv = plan.roles[0].command;
  plan.roles[0].env = {{"PYTHONPATH", out.path()}};
  plan.fault_tolerance.warm_start.roles = {"worker"};
  plan.fault_tolerance.warm_start.preload = {"heavy"};
  Cluster cluster(plan);
  cluster.start_all();
  REQUIRE(wait_for_standby_warm(cluster, "node-3"));
  ::kill(cluster.launcher("node-3").pid(), SIGKILL);
  CHECK(cluster.launcher("node-3").wait(5) == 128 + SIGKILL);
  std::map<std::string, int> codes;
  for (const char* node : {"node-1", "node-2"}) codes[node] = cluster.launcher(node).wait(40);
  INFO(cluster.transcript());
  expect_all_exit(codes, 0, cluster);
  CHECK(count_lines_with(slurp(cluster.dir() / "logs/coordinator/events.jsonl"),
                         "\"event\":\"spare-lost\"") == 1);
  CHECK(leftover_processes("mn-warm-spare-kill").empty());
}

// Whether the job runs everywhere within 30 s: its last instance started its process.
bool runs_everywhere(const Cluster& cluster) {
  const std::string events = cluster.dir() / "logs/worker-2/events.jsonl";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (slurp(events).find("process-started") == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST_CASE("when the coordinator dies every launcher stops its processes and exits 3") {
  // exec: a launcher killed with SIGKILL takes its direct children along (PR_SET_PDEATHSIG),
  // not their children.
  Plan plan = cluster_plan("mn-coordinator-lost", 105, 3, 0, "exec sleep 60");
  Cluster cluster(plan);
  const std::string verdict = cluster.dir() / "verdict";
  for (const char* node : {"node-1", "node-2", "node-3"}) {
    cluster.start(node, {"--verdict-file", verdict});
  }
  REQUIRE(runs_everywhere(cluster));
  ::kill(cluster.launcher("node-1").pid(), SIGKILL);
  CHECK(cluster.launcher("node-1").wait(5) == 128 + SIGKILL);
  for (const char* node : {"node-2", "node-3"}) {
    INFO(cluster.transcript());
    // Not a verdict: the job did not fail on its own account, and may run again.
    CHECK(cluster.launcher(node).wait(10) == 3);
    CHECK(cluster.launcher(node).err().find("coordinator") != std::string::npos);
  }
  // Nobody gave a verdict: only the coordinator's launcher writes one.
  CHECK_FALSE(std::filesystem::exists(verdict));
  CHECK(leftover_processes("mn-coordinator-lost").empty());
}

TEST_CASE(
    "a coordinator stopped longer than its launchers wait says so - no node blamed and no "
    "restart") {
  // SIGSTOP of the launcher that hosts the coordinator stands for its node stalling: the other
  // launchers give up on the coordinator and end; once it runs again it says it stalled.
  Plan plan = cluster_plan("mn-coordinator-stall", 109, 3, 1, "exec sleep 60");
  plan.fault_tolerance.policy = pai::RestartPolicy::OnFailure;
  Cluster cluster(plan);
  cluster.start_all();
  REQUIRE(runs_everywhere(cluster));
  const int coordinator = cluster.launcher("node-1").pid();
  ::kill(coordinator, SIGSTOP);
  for (const char* node : {"node-2", "node-3"}) {
    INFO(cluster.transcript());
    CHECK(cluster.launcher(node).wait(20) == 3);
    CHECK(cluster.launcher(node).err().find("coordinator") != std::string::npos);
  }
  ::kill(coordinator, SIGCONT);
  INFO(cluster.transcript());
  CHECK(cluster.launcher("node-1").wait(20) == 1);
  CHECK(cluster.launcher("node-4").wait(20) != 0);  // the spare: its coordinator gave up too
  const std::string journal = slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  CHECK(journal.find("this coordinator sent no heartbeat for ") != std::string::npos);
  CHECK(journal.find("\"event\":\"node-lost\"") == std::string::npos);
  CHECK(journal.find("\"event\":\"restart\"") == std::string::npos);
  CHECK(leftover_processes("mn-coordinator-stall").empty());
}

TEST_CASE("a node whose custom sanity check fails is replaced by the spare") {
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  Plan plan = cluster_plan("mn-check-spare", 106, 3, 1,
                           "echo $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX > " + results +
                               "/rank-$RANK\n");
  plan.sanity_check.enabled = true;
  plan.sanity_check.checks = {};
  plan.sanity_check.max_attempts = 1;
  plan.sanity_check.custom = {CustomCheck{"healthy", "test -z \"$PAI_TEST_BROKEN\"", 10}};
  Cluster cluster(plan);
  cluster.start("node-1");
  cluster.start("node-2", {}, {{"PAI_TEST_BROKEN", "1"}});
  cluster.start("node-3");
  cluster.start("node-4");
  auto codes = cluster.wait_all();
  expect_all_exit(codes, 0, cluster);
  CHECK(files_in(results) == std::set<std::string>{"rank-0", "rank-1", "rank-2"});
  INFO(cluster.transcript());
  CHECK(cluster.launcher("node-4").err().find("assigned worker-1") != std::string::npos);
  CHECK(cluster.launcher("node-2").err().find("replaced") != std::string::npos);
  CHECK(leftover_processes("mn-check-spare").empty());
}

TEST_CASE(
    "what sanity checks start in sessions of their own ends with them - the next run "
    "listens on the coordinator's port") {
  TempDir out;
  Plan plan = cluster_plan("mn-check-helpers", 147, 2, 0, "true");
  plan.sanity_check.enabled = true;
  plan.sanity_check.checks = {};
  // On each node, a helper out of the check's process group and its output (issue 38).
  // Its pid in a file of its own per check, written once it is out of the group.
  plan.sanity_check.custom = {CustomCheck{
      "helper",
      "p=" + out.path() +
          "/helper.$$; setsid sh -c \"echo \\$\\$ > $p; exec sleep 120\" > /dev/null 2>&1 & "
          "while [ ! -s $p ]; do sleep 0.01; done",
      10}};
  for (int run = 1; run <= 2; ++run) {
    INFO("run " << run);
    Cluster cluster(plan);
    cluster.start_all();
    expect_all_exit(cluster.wait_all(), 0, cluster);
    int count = 0;
    for (const std::string& name : files_in(out.path())) {
      const pid_t pid = std::stoi(slurp(out / name));
      CHECK(process_gone_or_killed(pid, 2));
      std::remove((out / name).c_str());
      ++count;
    }
    CHECK(count == 2);
    // Nothing holds the coordinator's port: the next run listens on it.
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(plan.coordinator.port));
    ::inet_pton(AF_INET, plan.coordinator.address.c_str(), &address.sin_addr);
    CHECK(::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    CHECK(::listen(s, 1) == 0);
    ::close(s);
  }
}

TEST_CASE("the coordinator refuses a launcher whose plan differs from its own") {
  // Same job, hosts and token; node-2 was given the plan.json of another compile.
  const Plan plan = cluster_plan("mn-plan-mismatch", 107, 2, 0, "exit 0");
  Plan other = plan;
  other.roles[0].command = {"/bin/sh", "-c", "echo another compile"};
  other.roles[0].launch_argv = other.roles[0].command;
  Cluster cluster(plan);
  const std::string ours = plan_seal(plan, Cluster::kToken);
  const std::string theirs = plan_seal(other, Cluster::kToken);
  REQUIRE(ours != theirs);

  cluster.start("node-1");
  Launcher& odd = cluster.start("node-2", {}, {}, cluster.write_other_plan(other));
  INFO(cluster.transcript());
  CHECK(odd.wait(20) == 2);
  const std::string reason =
      "node node-2 runs another plan than the coordinator: its plan.json "
      "has seal " +
      theirs + ", the coordinator's seal " + ours +
      "; give every node the plan.json and job.token of one pai-compile "
      "run";
  CHECK(count_lines_with(odd.err(), "pai-launch: error: refused by the coordinator: " + reason) ==
        1);
  CHECK(count_lines_with(slurp(cluster.dir() / "logs/coordinator/events.jsonl"),
                         "\"event\":\"peer-rejected\"") == 1);
  CHECK(count_lines_with(cluster.launcher("node-1").err(),
                         "rejected launcher node-2 from 127.107.0.2: " + reason) == 1);

  // Given the right plan, the same node joins and the job runs.
  cluster.start("node-2");
  auto codes = cluster.wait_all();
  expect_all_exit(codes, 0, cluster);
  CHECK(leftover_processes("mn-plan-mismatch").empty());
}

// masterStore launcher on two nodes, MASTER_PORT taken on rank 0's node (another job, say):
// rank 0's launcher says where and why and starts nothing; the coordinator fails the job at
// once (it sees the node leave: no spare to take it), so the other node, whose ranks started,
// stops them and does not wait for a timeout: both exit 1 within seconds.
TEST_CASE("with masterStore launcher a taken MASTER_PORT on rank 0's node fails every node") {
  Plan plan = cluster_plan("mn-store-taken", 197, 2, 0, "echo should not run", 2);
  plan.master_store = MasterStore::Launcher;
  plan.roles[0].env_convention = EnvConvention::PerProcess;
  // The rendezvous places MASTER_PORT after the coordinator's port, in a range of this test's.
  plan.port_range_min = 20000 + 10 * 197;
  plan.port_range_max = plan.port_range_min + 9;
  place(plan, plan.hosts);
  const int holder = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(holder >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(plan.master.port));
  REQUIRE(::inet_pton(AF_INET, plan.master.address.c_str(), &addr.sin_addr) == 1);
  REQUIRE(::bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(holder, 1) == 0);
  Cluster cluster(plan);
  const auto started = std::chrono::steady_clock::now();
  cluster.start_all();
  auto codes = cluster.wait_all(30);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ::close(holder);
  INFO(cluster.transcript());
  CHECK(codes.at("node-1") == 1);
  CHECK(codes.at("node-2") == 1);
  CHECK(seconds < 15);  // not the 20 s rendezvous timeout of a node left waiting
  CHECK(cluster.launcher("node-1").err().find(
            "error: cannot serve the ranks' store on " + plan.master.address + ":" +
            std::to_string(plan.master.port) + ": Address already in use") != std::string::npos);
  CHECK(cluster.launcher("node-1").out().find("should not run") == std::string::npos);
  // The coordinator says why the node left: what its launcher said, not "connection closed".
  CHECK(cluster.launcher("node-1").err().find(
            "node node-1 (worker-0) lost: failed: cannot serve the ranks' store on " +
            plan.master.address + ":" + std::to_string(plan.master.port) +
            ": Address already in use") != std::string::npos);
  CHECK(leftover_processes("mn-store-taken").empty());
}

}  // namespace cluster_test
