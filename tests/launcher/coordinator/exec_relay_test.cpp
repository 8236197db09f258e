#include "launcher/coordinator/exec_relay.h"

#include <catch2/catch.hpp>
#include <set>

#include "machine_harness.h"

namespace exec_relay_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;
using pai::net::base64_encode;

namespace {

Json output(std::int64_t id, const std::string& text) {
  return Json{
      {"type", "exec-output"}, {"id", id}, {"stream", "stdout"}, {"data", base64_encode(text)}};
}

Json exit_of(std::int64_t id, int code) {
  return Json{{"type", "exec-exit"}, {"id", id}, {"code", code}};
}

}  // namespace

TEST_CASE("run execs on every launcher and relays output and exits with node names - then done") {
  MachineHarness h;
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "run"}, {"argv", {"nvidia-smi", "-L"}}});
  std::map<std::string, std::int64_t> ids;
  for (const char* node : {"node-0", "node-1", "node-2", "spare-0"}) {
    const Json exec = h.only(node, "exec");
    CHECK(exec.at("argv") == Json::array({"nvidia-smi", "-L"}));
    CHECK(exec.at("stdin") == false);
    ids[node] = exec.at("id").get<std::int64_t>();
  }
  CHECK(
      std::set<std::int64_t>{ids["node-0"], ids["node-1"], ids["node-2"], ids["spare-0"]}.size() ==
      4);
  CHECK(h.records("run").at(0).line == "running nvidia-smi on 4 nodes (requested by admin-host)");

  h.clear();
  h.receive("node-1", output(ids["node-1"], "GPU 0: H100\n"));
  CHECK(h.only("admin-host", "exec-output") == Json{{"type", "exec-output"},
                                                    {"node", "node-1"},
                                                    {"stream", "stdout"},
                                                    {"data", base64_encode("GPU 0: H100\n")}});
  h.receive("node-1", exit_of(ids["node-1"], 0));
  h.receive("node-0", exit_of(ids["node-0"], 0));
  h.receive("spare-0", exit_of(ids["spare-0"], 0));
  CHECK(h.sent("admin-host", "done").empty());
  // A node lost mid-command ends it with 255 and says why.
  h.disconnect("node-2", "connection reset by peer");
  const auto exits = h.sent("admin-host", "exec-exit");
  REQUIRE(exits.size() == 4);
  CHECK(exits[3] == Json{{"type", "exec-exit"}, {"node", "node-2"}, {"code", 255}});
  CHECK(h.sent("admin-host", "exec-output").back().at("data") ==
        base64_encode("pai-launch: node node-2 lost: connection reset by peer\n"));
  CHECK(h.sent("admin-host", "done").size() == 1);
}

TEST_CASE("a run client that goes away has its commands killed") {
  MachineHarness h;
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "run"}, {"argv", {"sleep", "100"}}});
  const auto id0 = h.only("node-0", "exec").at("id");
  h.receive("node-1", exit_of(h.only("node-1", "exec").at("id"), 0));
  h.clear();
  h.disconnect("admin-host", "closed");
  CHECK(h.only("node-0", "exec-kill") == Json{{"type", "exec-kill"}, {"id", id0}});
  CHECK(h.sent("node-1", "exec-kill").empty());
  // Late output of a killed command goes nowhere.
  h.clear();
  h.receive("node-0", output(id0, "late"));
  CHECK_FALSE(h.closed("node-0"));
  CHECK(h.log.empty());
}

TEST_CASE("run with nothing to run on or nothing to run is an error reply") {
  MachineHarness h;
  const int admin = h.control();
  h.receive(admin, Json{{"type", "run"}, {"argv", {"true"}}});
  CHECK(h.only("admin-host", "error").at("text") == "no launcher is connected");
  h.clear();
  h.receive(admin, Json{{"type", "run"}, {"argv", Json::array()}});
  CHECK(h.only("admin-host", "error").at("text") == "run: the command is empty");
}

TEST_CASE("rsh relays stdin to one node and its output back - closing kills the command") {
  MachineHarness h;
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "rsh"}, {"node", "node-1"}, {"argv", {"bash"}}});
  const Json exec = h.only("node-1", "exec");
  CHECK(exec.at("stdin") == true);
  CHECK(h.sent("node-0", "exec").empty());
  const auto id = exec.at("id");

  h.receive(admin, Json{{"type", "exec-stdin"}, {"data", base64_encode("ls\n")}, {"eof", false}});
  CHECK(h.only("node-1", "exec-stdin") ==
        Json{{"type", "exec-stdin"}, {"id", id}, {"data", base64_encode("ls\n")}, {"eof", false}});
  h.receive("node-1", output(id, "train.py\n"));
  CHECK(h.only("admin-host", "exec-output").at("node") == "node-1");

  h.clear();
  h.disconnect("admin-host", "closed");
  CHECK(h.only("node-1", "exec-kill") == Json{{"type", "exec-kill"}, {"id", id}});
}

TEST_CASE("rsh ends with the command's exit and no done") {
  MachineHarness h;
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "rsh"}, {"node", "node-2"}, {"argv", {"true"}}});
  h.receive("node-2", exit_of(h.only("node-2", "exec").at("id"), 3));
  CHECK(h.only("admin-host", "exec-exit") ==
        Json{{"type", "exec-exit"}, {"node", "node-2"}, {"code", 3}});
  CHECK(h.sent("admin-host", "done").empty());
  // Input the client sent before it saw the exit is dropped.
  h.clear();
  h.receive(admin, Json{{"type", "exec-stdin"}, {"data", base64_encode("y\n")}, {"eof", false}});
  CHECK(h.log.empty());
  CHECK_FALSE(h.closed("admin-host"));
}

TEST_CASE("rsh to an unknown or absent node is an error reply") {
  MachineHarness h;
  h.join("node-0");
  const int admin = h.control();
  h.receive(admin, Json{{"type", "rsh"}, {"node", "gpu-404"}, {"argv", {"true"}}});
  CHECK(h.only("admin-host", "error").at("text") == "no node named \"gpu-404\" in the job");
  h.clear();
  h.receive(admin, Json{{"type", "rsh"}, {"node", "node-1"}, {"argv", {"true"}}});
  CHECK(h.only("admin-host", "error").at("text") == "node node-1 is not connected");
}

TEST_CASE("exec-stdin without a remote command and bad exec-output are protocol errors") {
  MachineHarness h;
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "exec-stdin"}, {"data", base64_encode("x")}, {"eof", true}});
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "exec-stdin: data: no remote command was started");
  CHECK(h.closed("admin-host"));
  h.clear();
  h.receive("node-0", Json{{"type", "exec-output"}, {"id", 1}, {"stream", "stdlog"}, {"data", ""}});
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "exec-output: stream: expected \"stdout\" or \"stderr\", got \"stdlog\"");
  CHECK(h.closed("node-0"));
}

TEST_CASE("a command on a node that a spare replaces ends with 255") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1");
  h.join("node-2", failing_checks());
  const int admin = h.control();
  h.receive(admin, Json{{"type", "run"}, {"argv", {"dmesg"}}});
  h.receive("node-0", exit_of(h.only("node-0", "exec").at("id"), 0));
  h.receive("node-1", exit_of(h.only("node-1", "exec").at("id"), 0));
  h.clear();
  h.join("spare-0");
  REQUIRE(h.closed("node-2"));
  CHECK(h.only("admin-host", "exec-exit") ==
        Json{{"type", "exec-exit"}, {"node", "node-2"}, {"code", 255}});
  CHECK(h.sent("admin-host", "done").size() == 1);
}

}  // namespace exec_relay_test
