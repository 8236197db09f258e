// `pai-launch rsh`: ssh-style arguments, host resolution, and the relay of stdin, output and
// exit code against a scripted coordinator; every failure exits 255 as ssh's do.
#include "launcher/commands/rsh_command.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "launcher/fake_coordinator.h"
#include "launcher/launcher_harness.h"

namespace rsh_command_test {

using nlohmann::json;
using pai::launcher::parse_rsh_arguments;
using pai::launcher::resolve_rsh_host;
using pai::launcher::RshUsageError;
using pai::testing::b64;
using pai::testing::FakeCoordinator;
using pai::testing::FakePeer;
using pai::testing::TempDir;

namespace {

std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse_rsh_arguments(args);
  } catch (const RshUsageError& e) {
    return e.what();
  }
  FAIL("parse_rsh_arguments accepted the arguments");
  return {};
}

// A node of a `status` reply that holds no instance.
json node(const std::string& name, const std::string& address) {
  return json{{"node", name},     {"address", address}, {"instance", -1},
              {"role", ""},       {"index", -1},        {"ranks", json::array()},
              {"state", "ready"}, {"restarts", 0},      {"lastEvent", ""}};
}

const json kStatus{{"type", "status"},
                   {"job", "demo"},
                   {"phase", "running"},
                   {"nodes",
                    {node("node-1", "127.0.0.1"), node("node-2", "127.0.0.2"),
                     node("node-3", "127.0.0.2"), node("node-4", "127.0.0.4")}}};
const pai::net::StatusReply kStatusReply =
    std::get<pai::net::StatusReply>(pai::net::parse_control_reply(kStatus));

// pai-launch rsh ARGS against job "demo" at `port` (through the environment, as mpirun's
// children see it) with `input` on stdin; "<exit code>|<stdout>|<stderr>".
std::string rsh(int port, std::vector<std::string> args, const std::string& input = "") {
  TempDir dir;
  pai::testing::spit(dir / "job.token", "tok\n");
  pai::testing::spit(dir / "in", input);
  setenv("PAI_COORDINATOR", ("127.0.0.1:" + std::to_string(port)).c_str(), 1);
  setenv("PAI_TOKEN_FILE", (dir / "job.token").c_str(), 1);
  setenv("PAI_JOB_NAME", "demo", 1);
  const int in = ::open((dir / "in").c_str(), O_RDONLY | O_CLOEXEC);
  const int out = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err = ::open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int code = pai::launcher::rsh_command(args, in, out, err);
  ::close(in);
  ::close(out);
  ::close(err);
  unsetenv("PAI_COORDINATOR");
  unsetenv("PAI_TOKEN_FILE");
  unsetenv("PAI_JOB_NAME");
  return std::to_string(code) + "|" + pai::testing::slurp(dir / "out") + "|" +
         pai::testing::slurp(dir / "err");
}

}  // namespace

TEST_CASE("rsh takes ssh's options and the host and the command as ssh joins it") {
  auto r = parse_rsh_arguments({"-x", "-l", "root", "-o", "BatchMode=yes", "-p22", "-T",
                                "127.0.0.2", "orted", "--daemonize", "-mca", "ess", "\"env\""});
  CHECK(r.host == "127.0.0.2");
  CHECK(r.command == "orted --daemonize -mca ess \"env\"");
  CHECK_FALSE(r.no_stdin);
  CHECK(r.locator.plan_path.empty());

  r = parse_rsh_arguments({"-nxT", "root@node-2", "echo", "hi"});
  CHECK(r.host == "node-2");
  CHECK(r.command == "echo hi");
  CHECK(r.no_stdin);

  r = parse_rsh_arguments({"--plan", "out/plan.json", "--job=x", "--", "-node", "true"});
  CHECK(r.locator.plan_path == "out/plan.json");
  CHECK(r.locator.job == "x");
  CHECK(r.host == "-node");
  CHECK(r.command == "true");
  CHECK(parse_rsh_arguments({"-h"}).help);
}

TEST_CASE("rsh refuses arguments it cannot use") {
  CHECK(usage_error({}) == "no HOST given");
  CHECK(usage_error({"-x"}) == "no HOST given");
  CHECK(usage_error({"node-1"}) == "no COMMAND given (an interactive shell is not supported)");
  CHECK(usage_error({"-Z", "node-1", "true"}) == "unknown option -Z");
  CHECK(usage_error({"--bogus", "node-1", "true"}) == "unknown option --bogus");
  CHECK(usage_error({"-l"}) == "option -l needs an argument");
  CHECK(usage_error({"--plan"}) == "--plan needs a value");
  CHECK(usage_error({"root@", "true"}) == "the HOST is empty");
}

TEST_CASE("rsh finds the node by name or by its address") {
  CHECK(resolve_rsh_host(kStatusReply, "node-3") == "node-3");
  CHECK(resolve_rsh_host(kStatusReply, "127.0.0.4") == "node-4");
  auto error = [](const std::string& host) {
    try {
      resolve_rsh_host(kStatusReply, host);
    } catch (const RshUsageError& e) {
      return std::string(e.what());
    }
    FAIL("resolved " << host);
    return std::string();
  };
  CHECK(error("127.0.0.2") ==
        "address 127.0.0.2 is shared by nodes node-2, node-3: name the "
        "node instead");
  CHECK(error("gpu-9") ==
        "no node named or addressed gpu-9 in job demo (nodes: node-1, node-2, node-3, node-4)");
}

TEST_CASE("rsh finds the node of an instance by OpenPAI's ROLE-INDEX name") {
  json status = kStatus;
  for (int i : {1, 3}) {
    status["nodes"][i]["instance"] = i / 2;
    status["nodes"][i]["role"] = "worker";
    status["nodes"][i]["index"] = i / 2;
    status["nodes"][i]["ranks"] = {i / 2, i / 2};
  }
  const auto reply = std::get<pai::net::StatusReply>(pai::net::parse_control_reply(status));
  CHECK(resolve_rsh_host(reply, "worker-0") == "node-2");
  CHECK(resolve_rsh_host(reply, "worker-1") == "node-4");
  try {
    resolve_rsh_host(reply, "worker-2");
    FAIL("resolved worker-2");
  } catch (const RshUsageError& e) {
    CHECK(std::string(e.what()) ==
          "no node named or addressed worker-2 in job demo (nodes: node-1, node-2, node-3, "
          "node-4)");
  }
}

TEST_CASE("rsh runs the command on the node with its stdin and exits with its code") {
  const std::string input(200 * 1024, 'i');  // several stdin chunks
  FakeCoordinator coordinator("demo", "tok", [&](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    const json request = peer.expect("rsh");
    if (request != json{{"type", "rsh"},
                        {"node", "node-4"},
                        {"argv", {"/bin/sh", "-c", "orted -mca ess \"env\""}}}) {
      throw std::runtime_error("wrong rsh request " + request.dump());
    }
    std::string received;
    for (;;) {
      const json chunk = peer.expect("exec-stdin");
      received += pai::net::base64_decode(chunk.at("data").get<std::string>());
      if (chunk.at("eof") == true) break;
    }
    if (received != input) throw std::runtime_error("stdin came through wrong");
    peer.send(json{
        {"type", "exec-output"}, {"node", "node-4"}, {"stream", "stdout"}, {"data", b64("out\n")}});
    peer.send(json{{"type", "heartbeat"}});
    peer.send(json{
        {"type", "exec-output"}, {"node", "node-4"}, {"stream", "stderr"}, {"data", b64("err\n")}});
    peer.send(json{{"type", "exec-exit"}, {"node", "node-4"}, {"code", 3}});
    peer.wait_for_close();
  });
  CHECK(rsh(coordinator.port(), {"-x", "127.0.0.4", "orted", "-mca", "ess", "\"env\""}, input) ==
        "3|out\n|err\n");
  CHECK(coordinator.finish().peer == "control");
}

TEST_CASE("rsh -n sends the end of stdin at once") {
  FakeCoordinator coordinator("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    peer.expect("rsh");
    const json eof = peer.expect("exec-stdin");
    if (eof.at("eof") != true || eof.at("data") != "") throw std::runtime_error("not eof");
    peer.send(json{{"type", "exec-exit"}, {"node", "node-1"}, {"code", 0}});
  });
  CHECK(rsh(coordinator.port(), {"-n", "node-1", "true"}, "never read") == "0||");
  coordinator.finish();
}

TEST_CASE("rsh exits 255 when the coordinator refuses or the host is unknown") {
  FakeCoordinator refusing("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    peer.expect("rsh");
    peer.expect("exec-stdin");  // read before closing: unread data would reset the connection
    peer.send(json{{"type", "error"}, {"text", "node node-2 is not connected"}});
  });
  CHECK(rsh(refusing.port(), {"node-2", "true"}) ==
        "255||pai-launch rsh: node node-2 is not connected\n");
  refusing.finish();

  FakeCoordinator unknown("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    peer.wait_for_close();
  });
  CHECK(rsh(unknown.port(), {"10.9.9.9", "true"}) ==
        "255||pai-launch rsh: no node named or addressed 10.9.9.9 in job demo (nodes: node-1, "
        "node-2, node-3, node-4)\n");
  unknown.finish();

  FakeCoordinator gone("demo", "tok", [](FakePeer& peer) {
    peer.expect("status");
    peer.send(kStatus);
    peer.expect("rsh");
    peer.expect("exec-stdin");
  });
  const std::string lost = rsh(gone.port(), {"node-1", "sleep", "9"});
  CHECK(lost == "255||pai-launch rsh: 127.0.0.1:" + std::to_string(gone.port()) +
                    ": the coordinator closed the connection\n");
  gone.finish();
}

TEST_CASE("rsh without a job or a coordinator exits 255 and says why") {
  unsetenv("PAI_COORDINATOR");
  TempDir dir;
  const int out = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  const int err = ::open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  CHECK(pai::launcher::rsh_command({"node-1", "true"}, 0, out, err) == 255);
  ::close(out);
  ::close(err);
  CHECK(pai::testing::slurp(dir / "err") ==
        "pai-launch rsh: which job? pass --plan plan.json, or --coordinator ADDRESS:PORT "
        "--token-file FILE --job NAME (inside a job, PAI_COORDINATOR, PAI_TOKEN_FILE and "
        "PAI_JOB_NAME name it)\n");

  const int port = pai::testing::closed_port();
  const std::string where = "127.0.0.1:" + std::to_string(port);
  CHECK(rsh(port, {"node-1", "true"}) ==
        "255||pai-launch rsh: " + where +
            ": cannot connect: Connection refused; is the job running? the coordinator of job "
            "demo is expected at " +
            where + "\n");

  // Through the binary, as mpirun runs it: usage errors exit 255 too, with the usage.
  auto r = pai::testing::run_launcher(dir, {"rsh", "-Z", "node-1", "true"});
  CHECK(r.code == 255);
  CHECK(r.err.rfind("pai-launch rsh: unknown option -Z\nusage: pai-launch rsh [ssh options]", 0) ==
        0);
  r = pai::testing::run_launcher(dir, {"rsh", "--help"});
  CHECK(r.code == 0);
  CHECK(r.out.rfind("usage: pai-launch rsh", 0) == 0);
}

}  // namespace rsh_command_test
