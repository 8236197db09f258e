#include "launcher/node/node_agent.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "fake_parts.h"
#include "launcher/checks/check_result_json.h"
#include "launcher/logs/output_writers.h"
#include "launcher/net/protocol.h"
#include "libpai/node_history.h"
#include "support/plan_fixture.h"
#include "support/temp_dir.h"

namespace node_agent_test {

using namespace pai::launcher;
using namespace pai::launcher::testing;
using namespace std::chrono_literals;
using Strings = std::vector<std::string>;
using Messages = std::vector<Json>;

namespace {

// The terminal of the agent: a file in the scratch folder.
int open_terminal(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  return fd;
}

NodeAgentOptions options_for(const std::string& node, const pai::testing::TempDir& dir,
                             int terminal) {
  NodeAgentOptions options;
  options.node = node;
  options.coordinator_address = "10.0.0.1";
  options.coordinator_port = 20000;
  options.token = "job-token";
  options.checks = {pai::checks::make_result("gpu", pai::checks::CheckResult::Passed,
                                             "8x NVIDIA H100 80GB HBM3")};
  options.run_dir = dir / "run";
  options.supervisor.log_dir = dir / "logs";
  options.supervisor.terminal_stderr = terminal;
  std::filesystem::create_directories(options.run_dir);
  return options;
}

// A node's agent built from fakes in a scratch folder: its terminal lines go to a file there,
// its journal to events.jsonl there. The plan is make_test_plan(): worker-0 on node-0 (ranks
// 0-1), worker-1 on node-1 (ranks 2-3), ps-0 on node-2 (rank 4), spare spare-0; the
// coordinator at 10.0.0.1:20000, the master at 10.0.0.1:20001.
class AgentHarness {
 public:
  explicit AgentHarness(const std::string& node = "node-1",
                        pai::Plan p = pai::testing::make_test_plan())
      : plan(std::move(p)),
        terminal_(open_terminal(dir / "terminal")),
        options(options_for(node, dir, terminal_)),
        events(dir / "events.jsonl"),
        agent(plan, options, events,
              NodeAgentParts{link, instances, commands, logs, checks, clock, gpus, fabric, nics,
                             faults}) {}
  ~AgentHarness() {
    pai::launcher::flush_output();
    ::close(terminal_);
  }

  pai::testing::TempDir dir;
  pai::Plan plan;

 private:
  int terminal_;

 public:
  NodeAgentOptions options;
  EventLog events;
  FakeCoordinatorLink link;
  FakeInstanceRunner instances;
  FakeCommandRunner commands;
  FakeLogSubscription logs;
  FakeSanityCheckRunner checks;
  FakeClock clock;
  FakeGpuSampler gpus;
  FakeFabricRunner fabric;
  FakeNicTelemetry nics;
  FakeNodeFaults faults;
  NodeAgent agent;

  /// What the agent wrote on its terminal since the last said().
  std::string said() {
    pai::launcher::flush_output();
    const std::string all = pai::testing::slurp(dir / "terminal");
    const std::string fresh = all.substr(said_);
    said_ = all.size();
    return fresh;
  }

  /// The journal's records since the last journal(), without their time (nor the journal's
  /// header record).
  Messages journal() {
    Messages out;
    events.flush();
    std::istringstream lines(pai::testing::slurp(events.path()));
    int n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
      if (n < journaled_) continue;
      Json record = Json::parse(line);
      if (record.value("event", "") == "journal") continue;
      record.erase("time");
      out.push_back(record);
    }
    journaled_ = n;
    return out;
  }

  /// The coordinator sends `message`.
  void receive(const Json& message) { agent.on_message(message); }

  /// Joins and is assigned `instance` with the plan's hosts; forgets what that said, sent,
  /// journaled and asked.
  void join_and_assign(int instance) {
    REQUIRE(agent.join());
    receive(Json{{"type", "assign"}, {"instance", instance}, {"hosts", Json::array()}});
    forget();
  }

  void forget() {
    said();
    journal();
    link.take();
    instances.take();
    commands.take();
    logs.take();
  }

 private:
  std::size_t said_ = 0;
  int journaled_ = 0;
};

// What the agent says of a message it did not understand.
std::string not_understood(const std::string& error) {
  return "pai-launch: warning: a message from the coordinator was not understood: " + error + "\n";
}

Json protocol_error(const std::string& error) {
  return Json{{"event", "protocol-error"}, {"error", error}};
}

Json exited(int instance, int local_rank, int code, int signal, bool stopping,
            const std::string& reason, bool retryable = false, const std::string& line = "",
            const std::string& signature = "") {
  return pai::net::to_json(pai::net::Exited{.instance = instance,
                                            .local_rank = local_rank,
                                            .status = {.code = code, .signal = signal},
                                            .classification = {.retryable = retryable,
                                                               .reason = reason,
                                                               .matched_line = line,
                                                               .signature = signature},
                                            .stopping = stopping});
}

// A rank stopped by the launcher, as the supervisor reports it.
ProcessExited stopped_rank(int local_rank) {
  Classification c;
  c.reason = "stopped by pai-launch";
  return ProcessExited{0, local_rank, ExitStatus{0, 15}, c};
}

}  // namespace

TEST_CASE("join connects until the rendezvous timeout and sends node, checks and pid") {
  AgentHarness node;
  node.link.retried_because = "10.0.0.1:20000: cannot connect: Connection refused";
  REQUIRE(node.agent.join());
  CHECK(node.link.connect_deadline == node.clock.time + 5min);
  Json join = Json::parse(R"({"type": "join", "node": "node-1", "checks": [
      {"name": "gpu", "status": "passed", "summary": "8x NVIDIA H100 80GB HBM3", "figure": "",
       "seconds": 0.0, "detail": "", "facts": {}}]})");
  join["pid"] = ::getpid();
  CHECK(node.link.take() == Messages{join});
  CHECK(node.said() ==
        "pai-launch: waiting for the coordinator at 10.0.0.1:20000 (10.0.0.1:20000: cannot "
        "connect: Connection refused)\n"
        "pai-launch: joined the coordinator at 10.0.0.1:20000\n");
  CHECK(node.journal() == Messages{{{"event", "joined"}, {"coordinator", "10.0.0.1:20000"}}});
}

TEST_CASE("join carries the seal of the plan.json the launcher verified") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.seal = "hmac-sha256:" + std::string(64, 'e');
  AgentHarness node("node-1", plan);
  REQUIRE(node.agent.join());
  const Messages sent = node.link.take();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].at("type") == "join");
  CHECK(sent[0].at("seal") == plan.seal);
}

TEST_CASE("a launcher joining the next coordinator says what it ran last - and remembers starts") {
  AgentHarness node;
  node.options.ran = std::pair{1, 4};
  REQUIRE(node.agent.join());
  const Messages sent = node.link.take();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].at("ranInstance") == 1);
  CHECK(sent[0].at("ranAttempt") == 4);
  CHECK_FALSE(node.agent.ran());
  node.receive(Json{{"type", "assign"}, {"instance", 1}, {"hosts", Json::array()}});
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 5}});
  CHECK(node.agent.ran() == std::pair{1, 5});
}

TEST_CASE("a coordinator that cannot be reached ends the run with 1 before anything runs") {
  AgentHarness node;
  node.link.refusal = "10.0.0.1:20000: the coordinator rejected us: wrong job token";
  CHECK(node.agent.run() == 1);
  CHECK(node.link.take().empty());
  CHECK(node.instances.take().empty());
  CHECK(node.commands.take().empty());
  CHECK(node.said() ==
        "pai-launch: error: cannot join the coordinator: 10.0.0.1:20000: the coordinator "
        "rejected us: wrong job token\n");
  CHECK(node.journal() ==
        Messages{{{"event", "coordinator-unreachable"},
                  {"coordinator", "10.0.0.1:20000"},
                  {"error", "10.0.0.1:20000: the coordinator rejected us: wrong job token"}}});
}

TEST_CASE("a stop signal while waiting for the coordinator ends the run with 128+N") {
  for (const auto& [signal, name] : {std::pair{SIGTERM, "SIGTERM"}, std::pair{SIGINT, "SIGINT"}}) {
    AgentHarness node;
    node.link.retried_because = "10.0.0.1:20000: cannot connect: Connection refused";
    node.link.interrupted_by = signal;
    CHECK(node.agent.run() == 128 + signal);
    CHECK(node.link.take().empty());
    CHECK(node.instances.take().empty());
    CHECK(node.said() ==
          "pai-launch: waiting for the coordinator at 10.0.0.1:20000 (10.0.0.1:20000: cannot "
          "connect: Connection refused)\n"
          "pai-launch: received " + std::string(name) +
              " while waiting for the coordinator at 10.0.0.1:20000; stopping\n");
    CHECK(node.journal() == Messages{{{"event", "node-stopping"},
                                      {"reason", "received " + std::string(name)},
                                      {"coordinator", "10.0.0.1:20000"}}});
  }
}

TEST_CASE("run attaches the link, runs until the coordinator's finish and kills commands") {
  AgentHarness node;
  node.instances.while_running = [&] {
    CHECK(node.link.interval == 1000ms);
    CHECK(node.link.misses == 5);
    node.link.on_message(
        Json{{"type", "finish"}, {"exitCode", 0}, {"reason", "job 'test-job' succeeded"}});
  };
  CHECK(node.agent.run() == 0);
  CHECK(node.instances.take() == Strings{"run", "finish 0 reason job 'test-job' succeeded"});
  // Once for the finish, once more when the run ended.
  CHECK(node.commands.take() == Strings{"kill_all", "kill_all"});
  CHECK(node.said() ==
        "pai-launch: joined the coordinator at 10.0.0.1:20000\n"
        "pai-launch: job 'test-job' succeeded\n");
}

TEST_CASE("assign applies the host changes, adds the instance and says where it runs") {
  AgentHarness node;
  REQUIRE(node.agent.join());
  node.forget();
  // spare-0 took ps-0 from node-2.
  node.receive(Json::parse(R"({"type": "assign", "instance": 1, "hosts": [
      {"instance": 2, "name": "spare-0", "address": "10.0.1.1", "slots": 8}]})"));
  CHECK(node.plan.placements[2].host.name == "spare-0");
  CHECK(node.plan.placements[2].host.address == "10.0.1.1");
  CHECK(node.plan.placements[1].host.name == "node-1");
  CHECK(node.instances.take() == Strings{"add_instance worker-1 on node-1"});
  CHECK(std::filesystem::is_directory(node.dir / "logs/worker-1"));
  CHECK(node.said() ==
        "pai-launch: assigned worker-1 (node rank 1, ranks 2-3); master 10.0.0.1:20001\n");
  CHECK(node.journal() == Messages{{{"event", "assigned"},
                                    {"instance", "worker-1"},
                                    {"nodeRank", 1},
                                    {"firstRank", 2},
                                    {"master", "10.0.0.1:20001"}}});
  CHECK(node.link.take().empty());
  // Not an MPI job: no hostfile.
  CHECK(std::filesystem::is_empty(node.dir / "run"));

  SECTION("a later assignment of the same instance re-places without adding it again") {
    node.receive(Json{{"type", "assign"}, {"instance", 1}, {"hosts", Json::array()}});
    CHECK(node.plan.placements[2].host.name == "node-2");
    CHECK(node.instances.take().empty());
    CHECK(node.said() ==
          "pai-launch: assigned worker-1 (node rank 1, ranks 2-3); master 10.0.0.1:20001\n");
  }
  SECTION("an assignment of another instance is refused") {
    node.receive(Json{{"type", "assign"}, {"instance", 0}, {"hosts", Json::array()}});
    CHECK(node.instances.take().empty());
    CHECK(node.said() == not_understood("assign: instance: this node already runs instance 1"));
    CHECK(node.journal() ==
          Messages{protocol_error("assign: instance: this node already runs instance 1")});
  }
}

TEST_CASE("an MPI job's assignment writes the hostfile of the final hosts to the run folder") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.framework = pai::Framework::Mpi;
  AgentHarness node("node-1", plan);
  REQUIRE(node.agent.join());
  node.receive(Json::parse(R"({"type": "assign", "instance": 1, "hosts": [
      {"instance": 2, "name": "spare-0", "address": "10.0.1.1", "slots": 8}]})"));
  // The master role (worker) runs mpirun and holds no ranks of the hostfile.
  CHECK(pai::testing::slurp(node.dir / "run/hostfile") == "10.0.1.1 slots=1\n");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(node.dir / "run")) {
    files.push_back(entry.path().filename().string());
  }
  CHECK(files == Strings{"hostfile"});
}

TEST_CASE("start starts the assigned instance, whose exits are reported") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  CHECK(node.instances.take() == Strings{"start 0 attempt 0"});
  CHECK(node.link.take().empty());

  Classification c;
  c.reason = "exit code 1: not retryable (no retryable error in the log)";
  c.signature = "exit:1";
  CHECK(node.agent.decide(ProcessExited{0, 1, ExitStatus{1, 0}, c}).empty());
  node.agent.failure_summary(0, 3, "worker-1 rank 3: exit code 1\n");
  CHECK(node.link.take() == Messages{exited(1, 1, 1, 0, false, c.reason, false, "", "exit:1"),
                                     {{"type", "failure"},
                                      {"instance", 1},
                                      {"rank", 3},
                                      {"summary", "worker-1 rank 3: exit code 1\n"}}});
}

TEST_CASE(
    "a save the coordinator asked to hear of is sent as checkpointed, with the global "
    "instance") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.link.take();
  node.agent.checkpointed(0, 40, 3);
  CHECK(node.link.take() ==
        Messages{{{"type", "checkpointed"}, {"instance", 1}, {"step", 40}, {"request", 3}}});
}

TEST_CASE("a restart is a stop reported as stopping, then the start of the next attempt") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 1}});
  node.receive(Json{{"type", "stop"},
                    {"instance", 1},
                    {"signal", 15},
                    {"dumpStacks", false},
                    {"reason", "restarting: worker-0 rank 0 failed"}});
  CHECK(node.instances.take() ==
        Strings{"start 0 attempt 1", "stop 0 signal 15 reason restarting: worker-0 rank 0 failed"});

  node.agent.decide(stopped_rank(0));
  node.agent.decide(stopped_rank(1));
  node.agent.decide(InstanceStopped{0});
  CHECK(node.link.take() == Messages{exited(1, 0, 0, 15, true, "stopped by pai-launch"),
                                     exited(1, 1, 0, 15, true, "stopped by pai-launch"),
                                     {{"type", "stopped"}, {"instance", 1}}});

  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 2}});
  CHECK(node.instances.take() == Strings{"start 0 attempt 2"});
  // The new attempt's exits are its own failures again.
  Classification c;
  c.retryable = true;
  c.reason = "exit code 1: retryable (NCCL error)";
  c.matched_pattern = "NCCL error";
  c.matched_line = "NCCL error: unhandled system error";
  c.signature = "pattern:NCCL error";
  node.agent.decide(ProcessExited{0, 0, ExitStatus{1, 0}, c});
  CHECK(node.link.take() ==
        Messages{exited(1, 0, 1, 0, false, c.reason, true, "NCCL error: unhandled system error",
                        "pattern:NCCL error")});
  CHECK(node.said().empty());
  CHECK(node.journal().empty());
}

TEST_CASE("stop stops the instance with the coordinator's signal and stack dumps") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.receive(Json{{"type", "stop"},
                    {"instance", 1},
                    {"signal", 10},
                    {"dumpStacks", true},
                    {"reason", "job paused by pai-launch stop"}});
  CHECK(node.instances.take() ==
        Strings{"start 0 attempt 0",
                "stop 0 signal 10 dumpStacks reason job paused by pai-launch stop"});
  node.agent.decide(stopped_rank(0));
  node.agent.decide(InstanceStopped{0});
  CHECK(node.link.take() == Messages{exited(1, 0, 0, 15, true, "stopped by pai-launch"),
                                     {{"type", "stopped"}, {"instance", 1}}});
}

TEST_CASE("kill SIGKILLs the instance as a failure: its exits are not stopping") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.receive(Json{{"type", "kill"}, {"instance", 1}});
  CHECK(node.instances.take() == Strings{"start 0 attempt 0", "kill_instance 0"});
  Classification c;
  c.reason = "signal 9 (SIGKILL) from outside: retryable";
  c.retryable = true;
  c.signature = "signal:9";
  node.agent.decide(ProcessExited{0, 0, ExitStatus{0, 9}, c});
  CHECK(node.link.take() == Messages{exited(1, 0, 0, 9, false, c.reason, true, "", "signal:9")});
}

TEST_CASE("a drill's fault goes to the supervisor - one it cannot put in is said") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.said();
  node.receive(Json{
      {"type", "inject"}, {"instance", 1}, {"rank", 1}, {"fault", "rank-hang"}, {"seconds", 30}});
  CHECK(node.instances.take() == Strings{"start 0 attempt 0", "inject 0 rank 1 rank-hang 30"});
  CHECK(node.said().empty());
  node.instances.inject_refusal = "worker-1 rank 3 is not running";
  node.receive(Json{
      {"type", "inject"}, {"instance", 1}, {"rank", 1}, {"fault", "slow-rank"}, {"seconds", 5}});
  CHECK(node.instances.take() == Strings{"inject 0 rank 1 slow-rank 5"});
  CHECK(node.said().find("drill: slow-rank: worker-1 rank 3 is not running") != std::string::npos);
}

TEST_CASE("a drill's link fault goes on the node's link and comes off after its seconds") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.forget();
  node.receive(Json{
      {"type", "inject"}, {"instance", 1}, {"rank", 0}, {"fault", "slow-link"}, {"seconds", 15}});
  CHECK(node.faults.calls == Strings{"put slow-link 15"});
  CHECK(node.instances.take().empty());  // not the ranks'
  CHECK(node.said() ==
        "pai-launch: drill: slow-link on eth0 for 15 s (the coordinator's traffic spared)\n");
  CHECK(node.journal() == Messages{{{"event", "fault-injected"},
                                    {"fault", "slow-link"},
                                    {"instance", "worker-1"},
                                    {"rank", -1},
                                    {"seconds", 15},
                                    {"place", "eth0"}}});
  // Its end is a deadline of the agent's: not before its seconds.
  const auto due = node.agent.next_deadline();
  REQUIRE(due);
  CHECK(*due <= node.clock.time + std::chrono::seconds(15));
  node.agent.on_deadline(node.clock.time + std::chrono::seconds(14));
  CHECK(node.faults.calls.size() == 1);
  node.agent.on_deadline(node.clock.time + std::chrono::seconds(15));
  CHECK(node.faults.calls == Strings{"put slow-link 15", "remove"});
  CHECK(node.journal() == Messages{{{"event", "fault-reverted"},
                                    {"fault", "slow-link"},
                                    {"instance", "worker-1"},
                                    {"rank", -1},
                                    {"why", "its seconds passed"}}});
  node.agent.on_deadline(node.clock.time + std::chrono::seconds(16));
  CHECK(node.faults.calls.size() == 2);  // once
}

TEST_CASE("a drill's full disk is the node's own fault - said without the link's words") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.forget();
  node.receive(Json{
      {"type", "inject"}, {"instance", 1}, {"rank", 0}, {"fault", "disk-full"}, {"seconds", 20}});
  CHECK(node.faults.calls == Strings{"put disk-full 20"});
  CHECK(node.instances.take().empty());
  CHECK(node.said() == "pai-launch: drill: disk-full on /out/.pai-drill-disk-full for 20 s\n");
  const Messages records = node.journal();
  REQUIRE(records.size() == 1);
  CHECK(records[0]["place"] == "/out/.pai-drill-disk-full");
}

TEST_CASE(
    "a refused link fault is said - a second one replaces the first - none outlives the "
    "node's run") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  node.forget();
  node.faults.refusal = "this node reaches the coordinator over the loopback interface";
  node.receive(Json{{"type", "inject"},
                    {"instance", 1},
                    {"rank", 0},
                    {"fault", "dropped-link"},
                    {"seconds", 20}});
  CHECK(node.said().find("drill: dropped-link: this node reaches the coordinator over the "
                         "loopback interface") != std::string::npos);
  CHECK(node.journal().empty());
  CHECK(node.agent.next_deadline() == node.link.deadline);  // nothing of the fault's

  node.faults.refusal.clear();
  node.receive(Json{{"type", "inject"},
                    {"instance", 1},
                    {"rank", 0},
                    {"fault", "dropped-link"},
                    {"seconds", 20}});
  node.faults.remove_failure = "tc qdisc del dev eth0 root handle 7ead: exited with status 2";
  node.receive(Json{
      {"type", "inject"}, {"instance", 1}, {"rank", 0}, {"fault", "slow-link"}, {"seconds", 5}});
  CHECK(node.faults.calls ==
        Strings{"put dropped-link 20", "put dropped-link 20", "remove", "put slow-link 5"});
  const Messages records = node.journal();
  REQUIRE(records.size() == 3);
  CHECK(records[1]["event"] == "fault-reverted");
  CHECK(records[1]["why"] ==
        "another fault replaces it; taking it off failed: tc qdisc del dev eth0 root handle "
        "7ead: exited with status 2");
  CHECK(node.said().find("warning: drill: the fault could not be taken off") != std::string::npos);

  // The job ends for the node: its run takes the fault off.
  node.faults.remove_failure.clear();
  node.instances.while_running = [&] {
    node.link.on_message(Json{{"type", "finish"}, {"exitCode", 0}, {"reason", "job succeeded"}});
  };
  CHECK(node.agent.run() == 0);
  CHECK(node.faults.calls.back() == "remove");
  const Messages after = node.journal();
  CHECK(std::any_of(after.begin(), after.end(), [](const Json& r) {
    return r["event"] == "fault-reverted" && r["why"] == "the job ended for this node";
  }));
}

TEST_CASE("checkpoint advice goes to the supervisor - a malformed one is a protocol error") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "checkpoint-advice"}, {"intervalSeconds", 600}, {"request", 1}});
  CHECK(node.instances.take() == Strings{"advise_checkpoints 600 1"});
  // A swap's request asks for the saves begun under it.
  node.receive(Json{
      {"type", "checkpoint-advice"}, {"intervalSeconds", 600}, {"request", 2}, {"report", true}});
  CHECK(node.instances.take() == Strings{"advise_checkpoints 600 2 report"});
  node.receive(Json{
      {"type", "checkpoint-advice"}, {"intervalSeconds", 600}, {"request", 2}, {"report", "yes"}});
  node.receive(Json{{"type", "checkpoint-advice"}, {"intervalSeconds", -1}, {"request", 1}});
  node.receive(Json{{"type", "checkpoint-advice"}, {"intervalSeconds", 600}});
  node.receive(
      Json{{"type", "checkpoint-advice"}, {"intervalSeconds", 365 * 86400 + 1}, {"request", 0}});
  CHECK(node.instances.take().empty());
}

TEST_CASE("a spare waits on standby, then takes another node's instance with a new log folder") {
  AgentHarness node("spare-0");
  REQUIRE(node.agent.join());
  node.forget();
  node.receive(Json{{"type", "standby"}});
  CHECK(node.said() == "pai-launch: standby: spare-0 is a spare and waits to be needed\n");
  CHECK(node.journal() == Messages{{{"event", "standby"}, {"node", "spare-0"}}});
  // It starts the warm interpreters an instance it takes would fork from (a no-op without
  // warm roles: supervisor_test).
  CHECK(node.instances.take() == Strings{"prewarm spare-spare-0"});
  CHECK_FALSE(std::filesystem::exists(node.dir / "logs/worker-1"));

  // node-1 is gone: spare-0 takes worker-1.
  node.receive(Json::parse(R"({"type": "assign", "instance": 1, "hosts": [
      {"instance": 1, "name": "spare-0", "address": "10.0.1.1", "slots": 8}]})"));
  CHECK(std::filesystem::is_directory(node.dir / "logs/worker-1"));
  CHECK(node.instances.take() == Strings{"add_instance worker-1 on spare-0"});
  CHECK(node.said() ==
        "pai-launch: assigned worker-1 (node rank 1, ranks 2-3); master 10.0.0.1:20001\n");
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", 1}});
  CHECK(node.instances.take() == Strings{"start 0 attempt 1"});
}

TEST_CASE("a lost coordinator stops this node's processes and ends the run with 3, no verdict") {
  AgentHarness node;
  const std::string why = "no heartbeat from the coordinator for 5.0s";
  node.instances.while_running = [&] {
    node.link.on_message(Json{{"type", "assign"}, {"instance", 1}, {"hosts", Json::array()}});
    node.link.on_message(Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
    node.forget();
    node.link.on_lost(why);
    CHECK(node.commands.take() == Strings{"kill_all"});
    CHECK(node.instances.take() == Strings{"finish 3 reason " + why});
    CHECK(node.said() == "pai-launch: error: " + why + "; stopping this node's processes\n");
    CHECK(node.journal() == Messages{{{"event", "coordinator-lost"}, {"reason", why}}});
    // Stopping the processes is reported to no one, and a second loss changes nothing.
    node.agent.decide(stopped_rank(0));
    node.agent.decide(InstanceStopped{0});
    node.agent.failure_summary(0, 2, "worker-1 rank 2: signal 15 (SIGTERM)\n");
    node.link.on_lost("lost the coordinator: 10.0.0.1:20000: connection reset");
    CHECK(node.link.take().empty());
    CHECK(node.instances.take().empty());
    CHECK(node.said().empty());
  };
  CHECK(node.agent.run() == 3);
  CHECK(node.commands.take() == Strings{"kill_all"});
}

TEST_CASE("the launcher that serves the coordinator ends with 1 when its link to it is lost") {
  // Its own coordinator stalled with it, or its node was cut off: the coordinator says how
  // the job ended, and the launcher gives no "run it again" of its own.
  AgentHarness host("node-0");
  host.options.serves_coordinator = true;
  const std::string why = "no heartbeat from the coordinator for 1.0s";
  host.instances.while_running = [&] {
    host.link.on_message(Json{{"type", "assign"}, {"instance", 0}, {"hosts", Json::array()}});
    host.forget();
    host.link.on_lost(why);
    CHECK(host.instances.take() == Strings{"finish 1 reason " + why});
  };
  CHECK(host.agent.run() == 1);
}

TEST_CASE("a message naming an instance that is not ours is a protocol error, not obeyed") {
  AgentHarness node;

  SECTION("before the assignment") {
    REQUIRE(node.agent.join());
    node.forget();
    node.receive(Json{{"type", "stop"},
                      {"instance", 1},
                      {"signal", 15},
                      {"dumpStacks", false},
                      {"reason", "restarting"}});
    CHECK(node.said() == not_understood("stop: instance: instance 1 does not run on this node"));
    CHECK(node.journal() ==
          Messages{protocol_error("stop: instance: instance 1 does not run on this node")});
  }
  SECTION("another node's instance") {
    node.join_and_assign(1);
    node.receive(Json{{"type", "start"}, {"instance", 0}, {"attempt", 0}});
    node.receive(Json{{"type", "kill"}, {"instance", 2}});
    CHECK(node.said() ==
          not_understood("start: instance: instance 0 does not run on this node") +
              not_understood("kill: instance: instance 2 does not run on this node"));
    CHECK(node.journal() ==
          Messages{protocol_error("start: instance: instance 0 does not run on this node"),
                   protocol_error("kill: instance: instance 2 does not run on this node")});
  }
  CHECK(node.instances.take().empty());
  CHECK(node.link.take().empty());
}

TEST_CASE("a message not understood is logged as a protocol error and the agent carries on") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "reboot"}});
  node.receive(Json::array({"start"}));
  node.receive(Json{{"type", "start"}, {"instance", 1}, {"attempt", "two"}});
  node.receive(Json{{"type", "exec-stdin"}, {"id", 7}, {"data", "not base64!"}});
  // Huge numbers: an instance beyond the plan, a signal beyond int.
  node.receive(Json{{"type", "assign"}, {"instance", 2147483647}, {"hosts", Json::array()}});
  node.receive(Json{{"type", "stop"},
                    {"instance", 1},
                    {"signal", 99999999999},
                    {"dumpStacks", false},
                    {"reason", "x"}});
  const std::string last_instance = std::to_string(node.plan.placements.size() - 1);
  const Strings errors = {
      "reboot: type: unknown message type",
      "message: expected a JSON object with a string \"type\"",
      "start: attempt: expected an integer",
      "exec-stdin: data: invalid base64: length 11 is not a multiple of 4",
      "assign: instance: expected an integer in [0, " + last_instance + "], got 2147483647",
      "stop: signal: expected an integer in [1, 64], got 99999999999"};
  std::string text;
  Messages records;
  for (const std::string& error : errors) {
    text += not_understood(error);
    records.push_back(protocol_error(error));
  }
  CHECK(node.said() == text);
  CHECK(node.journal() == records);
  CHECK(node.instances.take().empty());
  CHECK(node.commands.take().empty());
  CHECK(node.link.take().empty());

  node.receive(
      Json{{"type", "progress"}, {"text", "2/3 joined; waiting for node-2: no connection"}});
  node.receive(Json{{"type", "heartbeat"}});
  CHECK(node.said() == "pai-launch: rendezvous: 2/3 joined; waiting for node-2: no connection\n");
  CHECK(node.journal().empty());
}

TEST_CASE("finish stops what runs with the coordinator's exit code and says why") {
  AgentHarness node;
  node.join_and_assign(1);
  int code = 0;
  std::string reason;
  std::string said;
  SECTION("success") {
    code = 0;
    reason = "job 'test-job' succeeded";
    said = "pai-launch: job 'test-job' succeeded\n";
  }
  SECTION("a failed job") {
    code = 1;
    reason = "worker-1 rank 2 failed: exit code 1";
    said = "pai-launch: job failed: worker-1 rank 2 failed: exit code 1\n";
  }
  SECTION("a job that could not start") {
    code = 2;
    reason = "cannot place the job on its nodes";
    said = "pai-launch: error: cannot place the job on its nodes\n";
  }
  SECTION("no reason") { code = 0; }
  node.receive(Json{{"type", "finish"}, {"exitCode", code}, {"reason", reason}});
  CHECK(node.said() == said);
  CHECK(node.commands.take() == Strings{"kill_all"});
  CHECK(node.instances.take() == Strings{"finish " + std::to_string(code) + " reason " + reason});
  // What the stop of the processes raises is the node's own business now.
  node.agent.decide(stopped_rank(0));
  node.agent.decide(InstanceStopped{0});
  CHECK(node.link.take().empty());
}

TEST_CASE("a signal to the launcher cancels the job, ends the node with 128+N, reports no more") {
  AgentHarness node;
  node.join_and_assign(1);
  CHECK(node.agent.decide(StopRequested{15}).empty());
  CHECK(node.link.take() == Messages{Json{{"type", "cancel"}, {"signal", 15}}});
  CHECK(node.instances.take() == Strings{"finish 143 reason received SIGTERM"});
  CHECK(node.journal() == Messages{{{"event", "job-cancelled"},
                                    {"job", "test-job"},
                                    {"reason", "received SIGTERM"},
                                    {"exitCode", 143}}});
  CHECK(node.said() == "pai-launch: job 'test-job' cancelled: received SIGTERM\n");
  // A second signal stops harder but cancels nothing more.
  CHECK(node.agent.decide(StopRequested{2}).empty());
  CHECK(node.link.take().empty());
  node.agent.decide(stopped_rank(0));
  node.agent.decide(InstanceStopped{0});
  CHECK(node.link.take().empty());
}

TEST_CASE("a supervisor that gives up tells the coordinator why - once - and reports no more") {
  AgentHarness node;
  node.join_and_assign(1);
  node.link.take();
  node.agent.gave_up(1, "cannot serve the ranks' store on 127.0.0.1:29500: Address already in use");
  CHECK(node.link.take() ==
        Messages{Json{{"type", "node-failed"},
                      {"reason",
                       "cannot serve the ranks' store on 127.0.0.1:29500: Address "
                       "already in use"}}});
  node.agent.gave_up(2, "again");
  node.agent.decide(stopped_rank(0));
  CHECK(node.link.take().empty());
  // A node already ending (the coordinator's finish) sends nothing.
  AgentHarness ending;
  ending.join_and_assign(1);
  ending.agent.on_lost("connection closed");
  ending.link.take();
  ending.agent.gave_up(1, "late");
  CHECK(ending.link.take().empty());
}

TEST_CASE("a finish that cancels the job is journaled as job-cancelled, not as a failure") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "finish"},
                    {"exitCode", 143},
                    {"reason", "cancelled by SIGTERM on node-0"},
                    {"cancelled", true}});
  CHECK(node.said() == "pai-launch: job 'test-job' cancelled by SIGTERM on node-0\n");
  CHECK(node.journal() == Messages{{{"event", "job-cancelled"},
                                    {"job", "test-job"},
                                    {"reason", "cancelled by SIGTERM on node-0"},
                                    {"exitCode", 143}}});
  CHECK(node.instances.take() == Strings{"finish 143 reason cancelled by SIGTERM on node-0"});
}

TEST_CASE("ranks stuck exiting are reported as a hang") {
  AgentHarness node;
  node.join_and_assign(1);
  Classification c;
  c.reason = "ranks stuck exiting for 600s";
  c.signature = "hang";
  node.agent.decide(HangDetected{0, c});
  CHECK(node.link.take() == Messages{{{"type", "hang"},
                                      {"instance", 1},
                                      {"exiting", true},
                                      {"seconds", 600},
                                      {"reason", "ranks stuck exiting for 600s"}}});
}

TEST_CASE("heartbeats carry the activity of the instance while it runs") {
  AgentHarness node;
  const auto t = node.clock.time;
  node.link.deadline = t + 1s;
  CHECK(node.agent.next_deadline() == t + 1s);
  REQUIRE(node.agent.join());
  node.link.take();
  node.agent.on_deadline(t);
  CHECK(node.link.ticks == std::vector<FakeCoordinatorLink::TimePoint>{t});
  CHECK(node.link.take() == Messages{{{"type", "heartbeat"}, {"instances", Json::array()}}});

  node.receive(Json{{"type", "assign"}, {"instance", 1}, {"hosts", Json::array()}});
  node.agent.on_deadline(t + 1s);
  CHECK(node.link.take() == Messages{{{"type", "heartbeat"}, {"instances", Json::array()}}});
  node.instances.current_activity = InstanceActivity{true, 1500, 1800, 42, {}, {}};
  // The heartbeat of instance 1 with the activity above, plus `more` members.
  const auto beat = [](const Json& more) {
    Json entry{{"instance", 1}, {"idleMs", 1500}, {"hangInterval", 1800}, {"step", 42}};
    entry.update(more);
    return Messages{{{"type", "heartbeat"}, {"instances", Json::array({entry})}}};
  };
  node.agent.on_deadline(t + 2s);
  CHECK(node.link.take() == beat(Json::object()));
  // With cgroups, each running rank's figures go along.
  node.instances.current_activity.ranks = {RankActivity{1, 4711, 2500, 1 << 20, 3 << 20}};
  node.agent.on_deadline(t + 3s);
  CHECK(node.link.take() == beat({{"ranks",
                                   {{{"rank", 1},
                                     {"pid", 4711},
                                     {"cpuMs", 2500},
                                     {"memoryBytes", 1 << 20},
                                     {"memoryPeakBytes", 3 << 20}}}}}));
  // Ranks that write a telemetry ring add their summaries of the window.
  node.instances.current_activity.ranks.clear();
  node.instances.current_activity.telemetry = {RankTelemetrySummary{.rank = 1,
                                                                    .step = 42,
                                                                    .steps = 2,
                                                                    .step_us = 1'800'000,
                                                                    .window_us = 1'000'000,
                                                                    .comm_us = 250'000,
                                                                    .entered = 96,
                                                                    .exited = 95,
                                                                    .open_ms = 3,
                                                                    .op = 1,
                                                                    .quiet_ms = 3,
                                                                    .lost = 5,
                                                                    .tcp_rtt_us = 120,
                                                                    .tcp_retrans = 4}};
  node.agent.on_deadline(t + 4s);
  CHECK(node.link.take() == beat({{"telemetry",
                                   {{{"rank", 1},
                                     {"step", 42},
                                     {"steps", 2},
                                     {"stepUs", 1'800'000},
                                     {"windowUs", 1'000'000},
                                     {"commUs", 250'000},
                                     {"entered", 96},
                                     {"exited", 95},
                                     {"openMs", 3},
                                     {"op", 1},
                                     {"quietMs", 3},
                                     {"lost", 5},
                                     {"tcpRttUs", 120},
                                     {"tcpRetrans", 4}}}}}));
}

TEST_CASE("heartbeats carry the node's RDMA ports and the ranks' NCCL links while it runs") {
  AgentHarness node;
  const auto t = node.clock.time;
  REQUIRE(node.agent.join());
  node.receive(Json{{"type", "assign"}, {"instance", 1}, {"hosts", Json::array()}});
  node.link.take();
  node.nics.ports = {pai::net::NicPort{.port = "mlx5_0/1",
                                       .netdev = "eth2",
                                       .state = "ACTIVE",
                                       .window_ms = 1000,
                                       .counters = {{"port_rcv_errors", 3}}}};
  node.agent.on_deadline(t);
  CHECK(node.nics.windows == 0);  // nothing runs: no window to read
  CHECK_FALSE(node.link.take().at(0).contains("nics"));

  node.instances.current_activity = InstanceActivity{true, 0, 1800, 1, {}, {}};
  RankTelemetrySummary rank{.rank = 2, .step = 1, .window_us = 1'000'000};
  rank.peers = {PeerLinkSummary{.peer = 0, .direction = 1, .bytes = 4096, .busy_us = 80},
                PeerLinkSummary{.peer = 3, .direction = 2, .stalled_ms = 1500}};
  rank.peer_links = 5;
  // More links than the wire carries: the first kMaxNcclPeers go.
  for (std::size_t i = 0; i < pai::net::kMaxNcclPeers; ++i)
    rank.peers.push_back(PeerLinkSummary{.peer = 4});
  node.instances.current_activity.telemetry = {rank};
  node.agent.on_deadline(t + 1s);
  const Messages sent = node.link.take();
  REQUIRE(sent.size() == 1);
  CHECK(node.nics.windows == 1);
  CHECK(sent[0]["nics"] == Json::parse(R"([{"port":"mlx5_0/1","netdev":"eth2","state":"ACTIVE",
      "windowMs":1000,"counters":[{"counter":"port_rcv_errors","delta":3}]}])"));
  const Json& telemetry = sent[0]["instances"][0]["telemetry"][0];
  CHECK(telemetry["ncclPeerLinks"] == 5);
  REQUIRE(telemetry["ncclPeers"].size() == pai::net::kMaxNcclPeers);
  CHECK(telemetry["ncclPeers"][0] ==
        Json{{"peer", 0}, {"dir", "send"}, {"bytes", 4096}, {"busyUs", 80}, {"stalledMs", -1}});
  CHECK(telemetry["ncclPeers"][1] ==
        Json{{"peer", 3}, {"dir", "recv"}, {"bytes", 0}, {"busyUs", 0}, {"stalledMs", 1500}});
  // What the agent sends, the coordinator reads.
  CHECK(std::holds_alternative<pai::net::NodeHeartbeat>(
      pai::net::parse_node_to_coordinator(sent[0], 4)));
}

TEST_CASE("a critical NIC verdict is journaled and recorded in the check history as failed") {
  AgentHarness node;
  node.plan.sanity_check.history.dir = node.dir / "history";
  node.join_and_assign(1);
  const Json verdict = {{"type", "nic-verdict"},
                        {"port", "mlx5_0/1"},
                        {"problem", "flapping"},
                        {"evidence", "went down 3 times in 10 s"}};
  node.receive(verdict);
  const std::string file = pai::history_path(node.dir / "history", "node-1");
  CHECK(node.journal() == Messages{{{"event", "nic-verdict"},
                                    {"port", "mlx5_0/1"},
                                    {"problem", "flapping"},
                                    {"evidence", "went down 3 times in 10 s"},
                                    {"history", file}}});
  const auto read = pai::read_history(node.dir / "history", "node-1");
  REQUIRE(read.records.size() == 1);
  CHECK_FALSE(read.records[0].passed);
  CHECK(read.records[0].failed == Strings{"nic"});
  CHECK(read.records[0].summary == "nic: mlx5_0/1 flapping: went down 3 times in 10 s");
  // Two such verdicts quarantine the node at its next rendezvous, as two failed checks would.
  node.receive(verdict);
  node.journal();
  CHECK(pai::is_quarantined(node.dir / "history", "node-1", {5, 2}).quarantined);
  CHECK(node.said().empty());
}

TEST_CASE(
    "a NIC verdict that cannot be recorded in the history is still journaled, with a warning") {
  AgentHarness node;
  // The history folder is a file: no record can be written there.
  pai::testing::spit(node.dir / "history", "not a folder");
  node.plan.sanity_check.history.dir = node.dir / "history";
  node.join_and_assign(1);
  node.receive(Json{
      {"type", "nic-verdict"}, {"port", "mlx5_0/1"}, {"problem", "down"}, {"evidence", "DOWN"}});
  CHECK(node.said().starts_with(
      "pai-launch: warning: the NIC verdict is not in the check history: "));
  CHECK(node.journal() == Messages{{{"event", "nic-verdict"},
                                    {"port", "mlx5_0/1"},
                                    {"problem", "down"},
                                    {"evidence", "DOWN"},
                                    {"history", ""}}});
}

TEST_CASE("GPUs are sampled with the heartbeat while the instance runs - once per interval") {
  AgentHarness node;
  node.plan.monitoring.gpu_idle.window_seconds = 2;  // a sample every 500 ms
  const auto t = node.clock.time;
  REQUIRE(node.agent.join());
  node.receive(Json{{"type", "assign"}, {"instance", 1}, {"hosts", Json::array()}});
  node.link.take();
  node.agent.on_deadline(t);
  CHECK(node.gpus.samples == 0);  // nothing runs
  node.link.take();
  node.instances.current_activity = InstanceActivity{true, 0, 1800, 1, {}, {}};
  node.gpus.gpus = std::vector<pai::net::GpuSample>{
      {.index = 0, .utilization = 7, .memory_used_bytes = 1024, .memory_total_bytes = 4096}};
  const Json gpus = {
      {{"index", 0}, {"utilization", 7}, {"memoryUsedBytes", 1024}, {"memoryTotalBytes", 4096}}};
  node.agent.on_deadline(t);
  Messages sent = node.link.take();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["gpus"] == gpus);
  node.clock.time = t + 200ms;  // not yet due
  node.agent.on_deadline(node.clock.time);
  sent = node.link.take();
  REQUIRE(sent.size() == 1);
  CHECK_FALSE(sent[0].contains("gpus"));
  node.clock.time = t + 500ms;
  node.agent.on_deadline(node.clock.time);
  sent = node.link.take();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["gpus"] == gpus);
  CHECK(node.gpus.samples == 2);
}

TEST_CASE("a node without NVML says so once and samples no more") {
  AgentHarness node;
  node.join_and_assign(1);
  node.said();
  node.journal();
  node.instances.current_activity = InstanceActivity{true, 0, 1800, 1, {}, {}};
  node.gpus.gpus.reset();
  for (int beat = 0; beat < 3; ++beat) {
    node.clock.time += std::chrono::seconds(10);
    node.agent.on_deadline(node.clock.time);
  }
  CHECK(node.gpus.samples == 1);
  CHECK(node.said() ==
        "pai-launch: note: GPU utilization is not watched on this node: no NVML (fake)\n");
  CHECK(
      node.journal() ==
      Messages{{{"event", "gpu-sampling-off"}, {"node", "node-1"}, {"reason", "no NVML (fake)"}}});
}

TEST_CASE("exec runs commands for the coordinator and relays their output and exit") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "exec"}, {"id", 7}, {"argv", {"hostname", "-s"}}, {"stdin", true}});
  node.receive(Json{{"type", "exec"}, {"id", 8}, {"argv", {"true"}}});
  node.receive(Json{{"type", "exec-stdin"}, {"id", 7}, {"data", "aGk="}, {"eof", true}});
  node.receive(Json{{"type", "exec-stdin"}, {"id", 7}, {"data", "aGk="}});
  node.receive(Json{{"type", "exec-kill"}, {"id", 8}});
  CHECK(node.commands.take() == Strings{"start 7 hostname -s stdin", "start 8 true",
                                        "write_stdin 7 'hi' eof", "write_stdin 7 'hi'", "kill 8"});
  // The commands get the launcher's environment.
  const char* path = std::getenv("PATH");
  REQUIRE(path != nullptr);
  CHECK(std::count(node.commands.last_env.begin(), node.commands.last_env.end(),
                   std::pair<std::string, std::string>{"PATH", path}) == 1);

  node.agent.on_command_output(7, pai::net::Stream::Stdout, "node-1\n");
  node.agent.on_command_exit(7, 0);
  CHECK(
      node.link.take() ==
      Messages{{{"type", "exec-output"}, {"id", 7}, {"stream", "stdout"}, {"data", "bm9kZS0xCg=="}},
               {{"type", "exec-exit"}, {"id", 7}, {"code", 0}}});

  node.commands.own_pid = 4321;
  CHECK(node.agent.on_child_exit(4321, 0));
  CHECK_FALSE(node.agent.on_child_exit(4322, 0));
  CHECK(node.commands.take() == Strings{"on_child_exit 4321", "on_child_exit 4322"});
}

TEST_CASE("logs stream from the instance's log files while subscribed") {
  AgentHarness node;
  node.join_and_assign(1);
  const std::string rank2 = node.dir / "logs/worker-1/rank-2.attempt-0.log";
  const std::string rank3 = node.dir / "logs/worker-1/rank-3.attempt-0.log";
  node.instances.log_files_of[0] = {rank2, rank3};
  node.agent.on_output(0, 1);
  CHECK(node.logs.take().empty());

  node.receive(Json{{"type", "subscribe-logs"}, {"rank", -1}, {"tail", 65536}});
  CHECK(node.logs.take() ==
        Strings{"subscribe -1 tail 65536", "grew 2 " + rank2, "grew 3 " + rank3});
  CHECK(node.link.take() == Messages{{{"type", "log-end"}}});
  node.agent.on_output(0, 1);
  CHECK(node.logs.take() == Strings{"grew 3 " + rank3});
  node.agent.on_log_output(3, "step 10\n");
  CHECK(node.link.take() ==
        Messages{{{"type", "log"}, {"rank", 3}, {"instance", 1}, {"data", "c3RlcCAxMAo="}}});

  node.receive(Json{{"type", "unsubscribe-logs"}});
  node.agent.on_output(0, 0);
  CHECK(node.logs.take() == Strings{"unsubscribe"});
}

TEST_CASE("a failure's summary is the coordinator's to print - once for launchers sharing a terminal") {
  const std::string reason =
      "worker-1 local rank 0: exit code 3\npai-launch:   root cause: rank 2\npai-launch:   | "
      "boom\n";
  AgentHarness other;
  other.join_and_assign(1);
  other.receive(Json{{"type", "finish"}, {"exitCode", 1}, {"reason", reason}});
  CHECK(other.said() == "pai-launch: job failed: worker-1 local rank 0: exit code 3; its "
                        "root-cause summary is in the output of the coordinator on " +
                            pai::testing::make_test_plan().coordinator.host + "\n");

  // Its coordinator printed it on this launcher's terminal already.
  AgentHarness host("node-0");
  host.options.serves_coordinator = true;
  host.join_and_assign(0);
  host.receive(Json{{"type", "finish"}, {"exitCode", 1}, {"reason", reason}});
  CHECK(host.said().empty());
  CHECK(host.instances.take() == Strings{"finish 1 reason " + reason});
}

TEST_CASE("a subscription before the assignment sends no tail, only its end") {
  AgentHarness node("spare-0");
  REQUIRE(node.agent.join());
  node.forget();
  node.receive(Json{{"type", "subscribe-logs"}, {"rank", 3}, {"tail", 0}, {"lines", 20}});
  CHECK(node.logs.take() == Strings{"subscribe 3 tail 0 lines 20"});
  CHECK(node.link.take() == Messages{{{"type", "log-end"}}});
}

TEST_CASE("run-checks runs the checks in the background and answers with their results") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "run-checks"}, {"attempt", 2}});
  CHECK(node.said() == "pai-launch: running the sanity checks again (try 2 of 3)\n");
  CHECK(node.checks.calls == Strings{"start worker-1 on node-1"});
  CHECK(node.link.take().empty());

  node.checks.complete({pai::checks::make_result("gpu", pai::checks::CheckResult::Failed,
                                                 "GPU 3 fell off the bus")});
  CHECK(node.journal() == Messages{{{"event", "check"},
                                    {"name", "gpu"},
                                    {"status", "failed"},
                                    {"summary", "GPU 3 fell off the bus"}}});
  CHECK(node.link.take() == Messages{Json::parse(R"({"type": "checks", "checks": [
      {"name": "gpu", "status": "failed", "summary": "GPU 3 fell off the bus", "figure": "",
       "seconds": 0.0, "detail": "", "facts": {}}]})")});
}

TEST_CASE("fabric-listen and fabric-connect measure in the background and report the outcome") {
  AgentHarness node;
  node.join_and_assign(1);
  node.receive(Json{{"type", "fabric-listen"}, {"round", 1}, {"pair", 0}, {"key", "k1"}});
  CHECK(node.fabric.calls == Strings{"listen 1/0 key k1"});
  node.fabric.send(pai::net::FabricListening{1, 0, "10.9.0.2", 29999});
  CHECK(node.link.take() == Messages{Json::parse(R"({"type": "fabric-listening", "round": 1,
      "pair": 0, "address": "10.9.0.2", "port": 29999})")});

  node.receive(Json{{"type", "fabric-connect"},
                    {"round", 2},
                    {"pair", 1},
                    {"key", "k2"},
                    {"address", "10.9.0.3"},
                    {"port", 29998}});
  CHECK(node.fabric.calls.back() == "connect 2/1 key k2 to 10.9.0.3:29998");
  node.said();
  node.fabric.send(pai::net::FabricResult{2, 1, "", 9'410'000, 8'000'000, 40'000});
  CHECK(node.said() == "pai-launch: fabric check round 2: 8.00 Gbit/s (out 9.41, in 8.00)\n");
  CHECK(node.journal() == Messages{{{"event", "fabric-result"},
                                    {"round", 2},
                                    {"pair", 1},
                                    {"error", ""},
                                    {"outKbps", 9410000},
                                    {"inKbps", 8000000},
                                    {"latencyNs", 40000}}});
  CHECK(node.link.take().at(0)["type"] == "fabric-result");

  node.fabric.send(pai::net::FabricResult{2, 1, "connect to 10.9.0.3:29998: refused", 0, 0, 0});
  CHECK(node.said() == "pai-launch: fabric check round 2: connect to 10.9.0.3:29998: refused\n");
  CHECK(node.link.take().at(0)["error"] == "connect to 10.9.0.3:29998: refused");
}

TEST_CASE("run-checks on the coordinator's node tells the checks its port is in use") {
  AgentHarness node("node-0");
  node.options.serves_coordinator = true;
  node.join_and_assign(0);
  node.receive(Json{{"type", "run-checks"}, {"attempt", 1}});
  CHECK(node.checks.calls == Strings{"start worker-0 on node-0 coordinator served here"});
  // The first run of a round (before a restart) names no try: its number is not the job's.
  CHECK(node.said() == "pai-launch: running the sanity checks again\n");
}

TEST_CASE("run-checks with sanity checks disabled answers at once with no results") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.sanity_check.enabled = false;
  AgentHarness node("node-1", plan);
  node.join_and_assign(1);
  node.receive(Json{{"type", "run-checks"}, {"attempt", 2}});
  CHECK(node.link.take() == Messages{{{"type", "checks"}, {"checks", Json::array()}}});
  CHECK(node.checks.calls.empty());
  CHECK(node.said().empty());
}

}  // namespace node_agent_test
