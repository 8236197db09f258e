// `pai-launch status|stop|start|run|kill|logs` against a scripted coordinator: requests,
// rendering, exit codes, and every error path (no job, no coordinator, refusals, silence).
#include "launcher/commands/job_control_command.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "launcher/fake_coordinator.h"
#include "launcher/launcher_harness.h"
#include "launcher/report/journal_fixture.h"

namespace job_control_command_test {

using namespace std::chrono_literals;
using nlohmann::json;
using pai::launcher::ControlVerb;
using pai::launcher::JobControlOptions;
using pai::testing::b64;
using pai::testing::FakeCoordinator;
using pai::testing::FakePeer;
using pai::testing::TempDir;

namespace {

// A control command against job "demo" (token "tok") at `port`, its output in files.
struct Command {
  TempDir dir;
  JobControlOptions options;

  Command(ControlVerb verb, int port) {
    pai::testing::spit(dir / "job.token", "tok\n");
    ::chmod((dir / "job.token").c_str(), 0600);
    options.verb = verb;
    options.locator.coordinator = "127.0.0.1:" + std::to_string(port);
    options.locator.token_file = dir / "job.token";
    options.locator.job = "demo";
  }
  // Runs it; "<exit code>|<stdout>|<stderr>".
  std::string run() {
    const int out = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err = ::open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    options.out_fd = out;
    options.err_fd = err;
    const int code = pai::launcher::job_control_command(options);
    ::close(out);
    ::close(err);
    return std::to_string(code) + "|" + pai::testing::slurp(dir / "out") + "|" +
           pai::testing::slurp(dir / "err");
  }
};

json node(const std::string& name, const std::string& address, int instance, int index, json ranks,
          const std::string& state, int restarts, const std::string& last) {
  return json{{"node", name},         {"address", address},
              {"instance", instance}, {"role", instance >= 0 ? "worker" : ""},
              {"index", index},       {"ranks", std::move(ranks)},
              {"state", state},       {"restarts", restarts},
              {"lastEvent", last}};
}

const json kStatus{{"type", "status"},
                   {"job", "demo"},
                   {"phase", "running"},
                   {"nodes",
                    {node("node-1", "127.0.0.1", 0, 0, {0, 1}, "running", 0, "started attempt 0"),
                     node("node-2", "127.0.0.2", 1, 1, {2, 3}, "running", 12, ""),
                     node("spare-node", "127.0.0.4", -1, -1, json::array(), "standby", 0, "")}}};

// What `status` prints (as Command::run() gives it) when the coordinator answers `reply`.
std::string printed_status(const json& reply) {
  FakeCoordinator coordinator("demo", "tok", [&](FakePeer& peer) {
    peer.expect("status");
    peer.send(reply);
  });
  Command status(ControlVerb::Status, coordinator.port());
  const std::string out = status.run();
  coordinator.finish();
  return out;
}

}  // namespace

TEST_CASE("status prints the nodes of the job as an aligned table") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(json{{"type", "heartbeat"}});  // skipped by the client
    peer.send(kStatus);
  });
  Command status(ControlVerb::Status, coordinator.port());
  CHECK(status.run() ==
        "0|job demo: running\n"
        "NODE        ADDRESS    INSTANCE  RANKS  STATE    RESTARTS  LAST-EVENT\n"
        "node-1      127.0.0.1  worker-0  0-1    running  0         started attempt 0\n"
        "node-2      127.0.0.2  worker-1  2-3    running  12        -\n"
        "spare-node  127.0.0.4  -         -      standby  0         -\n"
        "|");
  CHECK(coordinator.finish().peer == "control");
}

TEST_CASE("status shows the ETTR so far beside the phase once the coordinator has it") {
  json with_ettr = kStatus;
  with_ettr["ettrBasisPoints"] = 9705;
  with_ettr["goodputJournals"] = 3;
  const std::string out = printed_status(with_ettr);
  CHECK(out.rfind("0|job demo: running, ETTR so far 97.05% (3 launchers' journals)\nNODE ", 0) ==
        0);
  with_ettr["ettrBasisPoints"] = 7;
  with_ettr["goodputJournals"] = 1;
  CHECK(printed_status(with_ettr).rfind(
            "0|job demo: running, ETTR so far 0.07% (1 launcher's journals)\n", 0) == 0);
  // Out of range is the coordinator's fault.
  with_ettr["ettrBasisPoints"] = 10001;
  CHECK(printed_status(with_ettr).find("answered something unexpected: status: "
                                       "ettrBasisPoints") != std::string::npos);
}

TEST_CASE("status adds a table of the running ranks' pid - CPU and memory when nodes sent them") {
  json with_usage = kStatus;
  with_usage["nodes"][0]["usage"] = json::array(
      {json{{"rank", 0}, {"pid", 4711}, {"cpuMs", 61300}, {"memoryBytes", 3ll << 30},
            {"memoryPeakBytes", 4ll << 30}},
       json{{"rank", 1}, {"pid", 4712}, {"cpuMs", 40}, {"memoryBytes", -1},
            {"memoryPeakBytes", -1}}});
  CHECK(
      printed_status(with_usage)
          .find(
              "spare-node  127.0.0.4  -         -      standby  0         -\n"
              "\n"
              "RANK  NODE    PID   STATE    ATTEMPT  STEP  RATE  ELAPSED  CPU    MEMORY   PEAK\n"
              "0     node-1  4711  running  -        -     -     -        61.3s  3.0 GiB  4.0 GiB\n"
              "1     node-1  4712  running  -        -     -     -        0.0s   -        -\n"
              "|") != std::string::npos);
}

TEST_CASE("status shows each rank's attempt - last step - step rate and elapsed time") {
  json with_steps = kStatus;
  auto telemetry = [](int rank, std::int64_t step, std::int64_t steps) {
    return json{{"rank", rank},        {"step", step},    {"steps", steps}, {"stepUs", 0},
                {"windowUs", 4000000}, {"commUs", 0},     {"entered", 0},   {"exited", 0},
                {"openMs", -1},        {"op", 0},         {"quietMs", -1},  {"lost", 0},
                {"tcpRttUs", -1},      {"tcpRetrans", -1}};
  };
  with_steps["nodes"][0]["attempt"] = 2;
  with_steps["nodes"][0]["elapsedMs"] = 3723000;
  with_steps["nodes"][0]["usage"] = json::array({json{
      {"rank", 1}, {"pid", 4712}, {"cpuMs", 40}, {"memoryBytes", -1}, {"memoryPeakBytes", -1}}});
  // Rank 0 sent telemetry only (no cgroups), rank 1 both; rank 0 has not finished a step.
  with_steps["nodes"][0]["telemetry"] = json::array({telemetry(0, -1, 0), telemetry(1, 1500, 50)});
  with_steps["nodes"][1]["attempt"] = 0;
  with_steps["nodes"][1]["elapsedMs"] = 5500;
  with_steps["nodes"][1]["telemetry"] = json::array({telemetry(3, 7, 1)});
  CHECK(
      printed_status(with_steps)
          .find("\n\n"
                "RANK  NODE    PID   STATE    ATTEMPT  STEP  RATE     ELAPSED  CPU   MEMORY  PEAK\n"
                "0     node-1  -     running  2        -     0.00/s   1h 02m   -     -       -\n"
                "1     node-1  4712  running  2        1500  12.50/s  1h 02m   0.0s  -       -\n"
                "3     node-2  -     running  0        7     0.25/s   5.5 s    -     -       -\n"
                "|") != std::string::npos);
}

TEST_CASE("status adds each rank's GPU utilization where its node sampled its GPUs") {
  json with_gpus = kStatus;
  auto gpu = [](int index, int utilization) {
    return json{{"index", index},
                {"utilization", utilization},
                {"memoryUsedBytes", 1 << 30},
                {"memoryTotalBytes", 80ll << 30}};
  };
  // node-1 (ranks 0-1) has GPU 0 at 97% and GPU 1 unknown; node-2 sampled nothing.
  with_gpus["nodes"][0]["gpus"] = json::array({gpu(0, 97), gpu(1, -1)});
  CHECK(printed_status(with_gpus).find(
            "\n\n"
            "RANK  NODE    PID  STATE    ATTEMPT  STEP  RATE  ELAPSED  CPU  MEMORY  PEAK  GPU\n"
            "0     node-1  -    running  -        -     -     -        -    -       -     97%\n"
            "1     node-1  -    running  -        -     -     -        -    -       -     -\n"
            "|") != std::string::npos);
}

TEST_CASE("status --json prints the coordinator's status message") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
  });
  Command status(ControlVerb::Status, coordinator.port());
  status.options.json = true;
  const std::string result = status.run();
  REQUIRE(result.rfind("0|", 0) == 0);
  const std::string out = result.substr(2, result.rfind('|') - 2);
  CHECK(json::parse(out) == kStatus);
  coordinator.finish();
}

TEST_CASE("status reports a malformed status message as the coordinator's fault") {
  json broken = kStatus;
  broken["nodes"][1]["ranks"] = json::array({2});
  FakeCoordinator coordinator("demo", "tok", [&](FakePeer& peer) {
    peer.expect("status");
    peer.send(broken);
  });
  Command status(ControlVerb::Status, coordinator.port());
  CHECK(status.run() ==
        "1||pai-launch status: the coordinator of job demo at " +
            status.options.locator.coordinator +
            " answered something unexpected: status: nodes[1]: ranks: expected [first, last]\n");
  coordinator.finish();
}

TEST_CASE("stop and start and kill print the coordinator's answer and a refusal exits 1") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("stop");
    peer.send(json{{"type", "ok"}, {"text", "stopping 2 instances"}});
  });
  Command stop(ControlVerb::Stop, coordinator.port());
  CHECK(stop.run() == "0|stopping 2 instances\n|");
  coordinator.finish();

  FakeCoordinator refusing("demo", "tok", [](FakePeer& peer) {
    const json kill = peer.expect("kill");
    if (kill.at("instance") != "worker-7") throw std::runtime_error("wrong instance");
    peer.send(json{{"type", "error"}, {"text", "no instance named \"worker-7\" in the job"}});
  });
  Command kill(ControlVerb::Kill, refusing.port());
  kill.options.instance = "worker-7";
  CHECK(kill.run() == "1||pai-launch kill: no instance named \"worker-7\" in the job\n");
  refusing.finish();

  FakeCoordinator odd("demo", "tok", [](FakePeer& peer) {
    peer.expect("start");
    peer.send(json{{"type", "status"}, {"job", "demo"}});
  });
  Command start(ControlVerb::Start, odd.port());
  CHECK(start.run() == "1||pai-launch start: the coordinator of job demo at " +
                           start.options.locator.coordinator +
                           " answered something unexpected: unexpected message \"status\"\n");
  odd.finish();
}

TEST_CASE("a coordinator that does not answer in time fails the command") {
  FakeCoordinator silent("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.wait_for_close();
  });
  Command status(ControlVerb::Status, silent.port());
  status.options.reply_timeout = 200ms;
  CHECK(status.run() == "1||pai-launch status: " + status.options.locator.coordinator +
                            ": no answer from the coordinator within 200 ms\n");
  silent.finish();
}

TEST_CASE("run prefixes every node's lines and exits with the worst node's code") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    const json run = peer.expect("run");
    if (run.at("argv") != json{"sh", "-c", "hostname; exit 3"}) throw std::runtime_error("argv");
    auto output = [&](const char* node, const char* stream, const std::string& text) {
      peer.send(
          json{{"type", "exec-output"}, {"node", node}, {"stream", stream}, {"data", b64(text)}});
    };
    output("node-1", "stdout", "hello\nwor");
    output("node-2", "stderr", "oops\n");
    output("node-1", "stdout", "ld\nno newline");
    peer.send(json{{"type", "exec-exit"}, {"node", "node-1"}, {"code", 0}});
    output("node-2", "stdout", "bye\n");
    peer.send(json{{"type", "exec-exit"}, {"node", "node-2"}, {"code", 3}});
    peer.send(json{{"type", "done"}});
  });
  Command run(ControlVerb::Run, coordinator.port());
  run.options.command = {"sh", "-c", "hostname; exit 3"};
  CHECK(run.run() ==
        "3|[node-1] hello\n[node-1] world\n[node-1] no newline\n[node-2] bye\n"
        "|[node-2] oops\npai-launch run: node-2: exit code 3\n");
  coordinator.finish();
}

TEST_CASE("run reports the coordinator's refusal") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("run");
    peer.send(json{{"type", "error"}, {"text", "no launcher is connected"}});
  });
  Command run(ControlVerb::Run, coordinator.port());
  run.options.command = {"true"};
  CHECK(run.run() == "1||pai-launch run: no launcher is connected\n");
  coordinator.finish();
}

TEST_CASE("logs names every rank's lines after its instance or prints one rank bare") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    const json logs = peer.expect("logs");
    // The last 100 lines within the last MiB of each rank's log.
    if (logs != json{{"type", "logs"},
                     {"rank", -1},
                     {"follow", false},
                     {"tail", 1024 * 1024},
                     {"lines", 100}}) {
      throw std::runtime_error("wrong logs request " + logs.dump());
    }
    peer.send(json{{"type", "log"}, {"rank", 2}, {"instance", 1}, {"data", b64("step 1\nst")}});
    peer.send(json{{"type", "log"}, {"rank", 0}, {"instance", 0}, {"data", b64("loss 3.2\n")}});
    peer.send(json{{"type", "log"}, {"rank", 2}, {"instance", 1}, {"data", b64("ep 2\n")}});
    peer.send(json{{"type", "done"}});
  });
  Command logs(ControlVerb::Logs, coordinator.port());
  logs.options.tail = 100;
  CHECK(logs.run() == "0|[worker-1/2] step 1\n[worker-0/0] loss 3.2\n[worker-1/2] step 2\n|");
  coordinator.finish();

  FakeCoordinator one("demo", "tok", [](FakePeer& peer) {
    const json request = peer.expect("logs");
    if (request.at("rank") != 3 || request.at("follow") != true) {
      throw std::runtime_error("wrong logs request " + request.dump());
    }
    peer.send(json{{"type", "log"}, {"rank", 3}, {"instance", 1}, {"data", b64("raw\nbytes")}});
    // The job ends: the coordinator goes, and a follower ends with it.
  });
  Command follow(ControlVerb::Logs, one.port());
  follow.options.rank = 3;
  follow.options.follow = true;
  CHECK(follow.run() ==
        "0|raw\nbytes|pai-launch logs: the coordinator closed the connection: the job is over\n");
  one.finish();

  FakeCoordinator refusing("demo", "tok", [](FakePeer& peer) {
    peer.expect("logs");
    peer.send(json{{"type", "error"}, {"text", "rank 9 is not in the job (world size 4)"}});
  });
  Command bad_rank(ControlVerb::Logs, refusing.port());
  bad_rank.options.rank = 9;
  CHECK(bad_rank.run() == "1||pai-launch logs: rank 9 is not in the job (world size 4)\n");
  refusing.finish();
}

TEST_CASE("logs --merge labels lines node:rank and prints identical lines of ranks once") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    const json logs = peer.expect("logs");
    if (logs.at("lines") != 5) throw std::runtime_error("wrong logs request " + logs.dump());
    for (int rank = 0; rank < 4; ++rank) {
      const std::string own = "rank " + std::to_string(rank) + " up\n";
      peer.send(json{{"type", "log"},
                     {"rank", rank},
                     {"instance", rank / 2},
                     {"data", b64(own + "epoch 1 do")}});
    }
    for (int rank = 3; rank >= 0; --rank) {
      peer.send(json{{"type", "log"}, {"rank", rank}, {"instance", rank / 2}, {"data", b64("ne\n")}});
    }
    peer.send(json{{"type", "done"}});
  });
  Command logs(ControlVerb::Logs, coordinator.port());
  logs.options.tail = 5;
  logs.options.merge = true;
  CHECK(logs.run() ==
        "0|[node-1:0] rank 0 up\n[node-1:1] rank 1 up\n[node-2:2] rank 2 up\n[node-2:3] rank 3 up\n"
        "[node-1:0-1,node-2:2-3] epoch 1 done\n|");
  coordinator.finish();

  // Following, a line waits the window for its copies, then goes out whatever comes later.
  FakeCoordinator follow("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    peer.expect("logs");
    peer.send(json{{"type", "log"}, {"rank", 2}, {"instance", 1}, {"data", b64("step 1\n")}});
    peer.send(json{{"type", "log"}, {"rank", 3}, {"instance", 1}, {"data", b64("step 1\n")}});
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    peer.send(json{{"type", "log"}, {"rank", 0}, {"instance", 0}, {"data", b64("step 1\n")}});
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
  });
  Command follower(ControlVerb::Logs, follow.port());
  follower.options.rank = 2;  // one rank or all: the labels are the same
  follower.options.follow = true;
  follower.options.merge = true;
  follower.options.merge_window = std::chrono::milliseconds(300);
  CHECK(follower.run() ==
        "0|[node-2:2-3] step 1\n[node-1:0] step 1\n"
        "|pai-launch logs: the coordinator closed the connection: the job is over\n");
  follow.finish();
}

TEST_CASE("logs without --follow fails when the coordinator goes before done") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) { peer.expect("logs"); });
  Command logs(ControlVerb::Logs, coordinator.port());
  logs.options.rank = 0;
  CHECK(logs.run() == "1||pai-launch logs: " + logs.options.locator.coordinator +
                          ": the coordinator closed the connection\n");
  coordinator.finish();
}

TEST_CASE("control commands without a reachable coordinator exit 1 and say where it was expected") {
  const int port = pai::testing::closed_port();
  Command status(ControlVerb::Status, port);
  const std::string where = "127.0.0.1:" + std::to_string(port);
  CHECK(status.run() == "1||pai-launch status: " + where +
                            ": cannot connect: Connection refused; is the job running? the "
                            "coordinator of job demo is expected at " +
                            where + "\n");
}

TEST_CASE("status --watch ends with how the job ended: outcome - exit code - reason") {
  json finished = kStatus;
  finished["phase"] = "finished";
  finished["outcome"] = "failed";
  finished["exitCode"] = 3;
  finished["reason"] = "worker-1 local rank 0 failed: exit code 3\nlast lines: ...";
  FakeCoordinator coordinator("demo", "tok", [&](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    peer.expect("status");
    peer.send(finished);
  });
  Command status(ControlVerb::Status, coordinator.port());
  status.options.watch = true;
  status.options.watch_interval = 10ms;
  const std::string printed = status.run();
  coordinator.finish();
  INFO(printed);
  CHECK(printed.rfind("0|", 0) == 0);
  // The reason's first line only: the rest is the failure summary the launchers printed.
  CHECK(printed.find("\nthe job ended: failed, exit code 3: worker-1 local rank 0 failed: exit "
                     "code 3\n|") != std::string::npos);
  CHECK(printed.find("last lines") == std::string::npos);
}

TEST_CASE("status --watch whose coordinator goes away says how the job ended from its journals") {
  TempDir logs;
  pai::testing::put_journal(logs, "worker-0", pai::testing::restarted_job_journal());
  FakeCoordinator coordinator("demo", "tok", [&](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
  });
  Command status(ControlVerb::Status, coordinator.port());
  status.options.watch = true;
  status.options.watch_interval = 10ms;
  status.options.locator.log_dir = logs.path();
  const std::string printed = status.run();
  coordinator.finish();
  INFO(printed);
  CHECK(printed.find("\nthe coordinator closed the connection: the job ended: succeeded, exit "
                     "code 0: the job succeeded after 1 restart\n|") != std::string::npos);
}

// The log folder of a job that is over: worker-0's journal (restarted once, then succeeded)
// and the logs of both its attempts, and rank 1's of instance worker-1.
void finished_job_folder(const TempDir& logs, bool ended) {
  std::string journal = pai::testing::restarted_job_journal();
  if (!ended) journal = journal.substr(0, journal.find("{\"time\":\"2026-01-02T03:04:08.001Z\""));
  pai::testing::put_journal(logs, "worker-0", journal);
  pai::testing::spit(logs / "worker-0/rank-0.attempt-0.log", "attempt 0\n");
  pai::testing::spit(logs / "worker-0/rank-0.attempt-1.log", "one\ntwo\nthree");
  ::mkdir((logs / "worker-1").c_str(), 0755);
  pai::testing::spit(logs / "worker-1/rank-1.attempt-1.log", "other\n");
}

TEST_CASE("once the coordinator is gone, status and logs read the log folder of a job that ended") {
  TempDir logs;
  finished_job_folder(logs, true);
  const int port = pai::testing::closed_port();
  Command status(ControlVerb::Status, port);
  status.options.locator.log_dir = logs.path();
  CHECK(status.run() ==
        "0|the job ended: succeeded, exit code 0: the job succeeded after 1 restart\n|");

  Command all(ControlVerb::Logs, port);
  all.options.locator.log_dir = logs.path();
  all.options.tail = 2;
  // "three" has no newline: a partial line is printed when the logs end, after the others.
  CHECK(all.run() ==
        "0|[worker-0/0] two\n[worker-1/1] other\n[worker-0/0] three\n|"
        "pai-launch logs: the job is over (the job ended: succeeded, exit code 0: the "
        "job succeeded after 1 restart); the logs of its ranks' last attempts, from " +
            logs.path() + ":\n");

  Command one(ControlVerb::Logs, port);
  one.options.locator.log_dir = logs.path();
  one.options.rank = 1;
  CHECK(one.run().rfind("0|other\n|", 0) == 0);

  Command missing(ControlVerb::Logs, port);
  missing.options.locator.log_dir = logs.path();
  missing.options.rank = 7;
  const std::string none = missing.run();
  CHECK(none.rfind("1||", 0) == 0);
  CHECK(none.find("pai-launch logs: rank 7 has no log there\n") != std::string::npos);
}

TEST_CASE("a log folder whose journals have no end leaves the connection error standing") {
  // The job may not have started yet, or its coordinator was killed: its logs are no answer.
  TempDir logs;
  finished_job_folder(logs, false);
  const int port = pai::testing::closed_port();
  for (ControlVerb verb : {ControlVerb::Status, ControlVerb::Logs}) {
    Command command(verb, port);
    command.options.locator.log_dir = logs.path();
    const std::string printed = command.run();
    INFO(printed);
    CHECK(printed.rfind("1||", 0) == 0);
    CHECK(printed.find("cannot connect: Connection refused; is the job running?") !=
          std::string::npos);
  }
}

TEST_CASE("control commands refuse bad arguments with exit 2") {
  unsetenv("PAI_COORDINATOR");
  Command run(ControlVerb::Run, 1);
  CHECK(run.run() == "2||pai-launch run: no command given: pai-launch run [options] -- CMD...\n");
  Command kill(ControlVerb::Kill, 1);
  CHECK(kill.run() ==
        "2||pai-launch kill: which instance? pai-launch kill ROLE-INDEX (e.g. worker-1)\n");
  Command logs(ControlVerb::Logs, 1);
  logs.options.tail = -1;
  CHECK(logs.run() == "2||pai-launch logs: --tail must be 0 or more lines\n");
  logs.options.tail = 0;
  logs.options.rank = -2;
  CHECK(logs.run() == "2||pai-launch logs: --rank must be a rank of the job (0 or more)\n");
  Command status(ControlVerb::Status, 1);
  status.options.locator = {};
  CHECK(status.run() ==
        "2||pai-launch status: which job? pass --plan plan.json, or --coordinator ADDRESS:PORT "
        "--token-file FILE --job NAME (inside a job, PAI_COORDINATOR, PAI_TOKEN_FILE and "
        "PAI_JOB_NAME name it)\n");
}

TEST_CASE("pai-launch wires the control commands and keeps run's two meanings apart") {
  unsetenv("PAI_COORDINATOR");
  TempDir dir;
  auto r = pai::testing::run_launcher(dir, {"status"});
  CHECK(r.code == 2);
  CHECK(r.err.rfind("pai-launch status: which job? pass --plan plan.json", 0) == 0);

  r = pai::testing::run_launcher(dir, {"run", "--node", "node-1", "--", "hostname"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "pai-launch: error: --node is for running a node of a job; with a command, run runs it "
        "on every node of a running job\n");
  r = pai::testing::run_launcher(dir, {"run", "--job", "demo"});
  CHECK(r.code == 2);
  CHECK(r.err ==
        "pai-launch: error: --coordinator and --job go with a command: pai-launch run ... -- "
        "CMD...\n");
  r = pai::testing::run_launcher(dir, {"run"});
  CHECK(r.code == 2);
  CHECK(r.err == "pai-launch: error: run: --plan is required\n");

  const int port = pai::testing::closed_port();
  pai::testing::spit(dir / "job.token", "tok\n");
  ::chmod((dir / "job.token").c_str(), 0600);  // else stderr starts with a warning about it
  r = pai::testing::run_launcher(
      dir, {"run", "--coordinator", "127.0.0.1:" + std::to_string(port), "--token-file",
            dir / "job.token", "--job", "demo", "--", "hostname", "-f"});
  CHECK(r.code == 1);
  CHECK(r.err.rfind("pai-launch run: 127.0.0.1:" + std::to_string(port) + ": cannot connect", 0) ==
        0);
  r = pai::testing::run_launcher(dir, {"kill"});
  CHECK(r.code == 2);
  CHECK(r.err.find("instance is required") != std::string::npos);
}

}  // namespace job_control_command_test
