#include "launcher/coordinator/status_report.h"

#include <catch2/catch.hpp>

#include "machine_harness.h"

namespace status_report_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

Json node_entry(const Json& status, const std::string& node) {
  for (const Json& n : status.at("nodes")) {
    if (n.at("node") == node) return n;
  }
  FAIL("no status entry for " << node);
  return {};
}

pai::Plan test_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  return plan;
}

}  // namespace

TEST_CASE("status during the rendezvous shows who is ready - failing - or missing") {
  MachineHarness h(test_plan());
  h.join("node-0");
  h.join("node-1", failing_checks());
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  const Json status = h.only("admin-host", "status");
  CHECK(status.at("job") == "test-job");
  CHECK(status.at("phase") == "rendezvous");
  CHECK(node_entry(status, "node-0").at("state") == "ready");
  CHECK(node_entry(status, "node-1").at("state") == "checking");
  CHECK(node_entry(status, "node-1").at("lastEvent") == "running checks (attempt 2)");
  CHECK(node_entry(status, "node-2").at("state") == "no-connection");
  CHECK(node_entry(status, "spare-0").at("state") == "no-connection");
  CHECK(node_entry(status, "spare-0").at("instance") == -1);
}

TEST_CASE("status while running shows instances - ranks - states and restarts") {
  MachineHarness h(test_plan());
  h.join("spare-0");
  h.join_all();
  h.receive("node-1", exited(1, 0, 1, 0, true, "exit code 1: retryable"));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  const Json status = h.only("admin-host", "status");
  CHECK(status.at("phase") == "running");
  const Json worker1 = node_entry(status, "node-1");
  CHECK(worker1 == Json{{"node", "node-1"},
                        {"address", "10.0.0.2"},
                        {"instance", 1},
                        {"role", "worker"},
                        {"index", 1},
                        {"ranks", {2, 3}},
                        {"state", "failed"},
                        {"restarts", 1},
                        {"lastEvent", "restart 1 in 10s"},
                        {"attempt", 0}});  // no elapsedMs: it does not run
  CHECK(node_entry(status, "node-0").at("state") == "stopped");
  CHECK(node_entry(status, "node-2").at("ranks") == Json::array({4, 4}));
  CHECK(node_entry(status, "spare-0").at("state") == "standby");
}

TEST_CASE("status shows a replaced node and the spare running its instance") {
  MachineHarness h(test_plan());
  h.join("spare-0");
  h.join("node-1");
  h.join("node-2");
  h.join("node-0", failing_checks());
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  const Json status = h.only("admin-host", "status");
  const Json replaced = node_entry(status, "node-0");
  CHECK(replaced.at("state") == "replaced");
  CHECK(replaced.at("instance") == -1);
  CHECK(replaced.at("lastEvent") == "replaced by spare spare-0: failed check burn");
  const Json spare = node_entry(status, "spare-0");
  CHECK(spare.at("state") == "running");
  CHECK(spare.at("role") == "worker");
  CHECK(spare.at("ranks") == Json::array({0, 1}));
}

TEST_CASE("status shows each running rank's pid - CPU and memory from the node's heartbeat") {
  MachineHarness h(test_plan());
  h.join_all();
  const Json usage = Json::array(
      {Json{{"rank", 2}, {"pid", 4711}, {"cpuMs", 1500}, {"memoryBytes", 1 << 20},
            {"memoryPeakBytes", 2 << 20}},
       Json{{"rank", 3}, {"pid", 4712}, {"cpuMs", 0}, {"memoryBytes", -1}, {"memoryPeakBytes", -1}}});
  auto beat = [](const Json& ranks) {
    return Json{{"type", "heartbeat"},
                {"instances", Json::array({Json{{"instance", 1},
                                                {"idleMs", 0},
                                                {"hangInterval", 0},
                                                {"step", 0},
                                                {"ranks", ranks}}})}};
  };
  h.receive("node-1", beat(usage));
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  const Json status = h.only("admin-host", "status");
  CHECK(node_entry(status, "node-1").at("usage") == usage);
  // A node without figures (no cgroups there) has none to show.
  CHECK_FALSE(node_entry(status, "node-0").contains("usage"));

  SECTION("figures for a rank of another instance are a protocol error") {
    h.clear();
    h.receive("node-1", beat(Json::array({Json{{"rank", 4},
                                               {"pid", 1},
                                               {"cpuMs", 0},
                                               {"memoryBytes", -1},
                                               {"memoryPeakBytes", -1}}})));
    CHECK(h.records("protocol-error").at(0).fields.at("error") ==
          "heartbeat: instances: rank 4 is not in instance 1");
    CHECK(h.closed("node-1"));
  }
  SECTION("a restarted instance shows no figures of its previous attempt") {
    h.receive("node-1", exited(1, 0, 1, 0, true, "exit code 1: retryable"));
    h.clear();
    h.receive(admin, Json{{"type", "status"}});
    CHECK_FALSE(node_entry(h.only("admin-host", "status"), "node-1").contains("usage"));
  }
}

TEST_CASE("status shows each instance's attempt and elapsed time - and its ranks' steps") {
  MachineHarness h(test_plan());
  const int admin = h.control();
  h.receive(admin, Json{{"type", "status"}});
  // Before the start: no attempt, no elapsed time.
  CHECK_FALSE(node_entry(h.only("admin-host", "status"), "node-1").contains("attempt"));
  CHECK_FALSE(node_entry(h.only("admin-host", "status"), "node-1").contains("elapsedMs"));
  h.join_all();
  h.advance(std::chrono::milliseconds(61500));
  const Json telemetry = Json::array({Json{{"rank", 2},
                                           {"step", 120},
                                           {"steps", 25},
                                           {"stepUs", 4900000},
                                           {"windowUs", 5000000},
                                           {"commUs", 0},
                                           {"entered", 0},
                                           {"exited", 0},
                                           {"openMs", -1},
                                           {"op", 0},
                                           {"quietMs", 10},
                                           {"lost", 0},
                                           {"tcpRttUs", -1},
                                           {"tcpRetrans", -1}}});
  h.receive("node-1", Json{{"type", "heartbeat"},
                           {"instances", Json::array({Json{{"instance", 1},
                                                           {"idleMs", 0},
                                                           {"hangInterval", 0},
                                                           {"step", 120},
                                                           {"telemetry", telemetry}}})}});
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  Json node1 = node_entry(h.only("admin-host", "status"), "node-1");
  CHECK(node1.at("attempt") == 0);
  CHECK(node1.at("elapsedMs") == 61500);
  CHECK(node1.at("telemetry") == telemetry);
  CHECK_FALSE(node_entry(h.only("admin-host", "status"), "node-0").contains("telemetry"));

  // After a failure and the restart: the next attempt, counted from its own start.
  h.receive("node-1", exited(1, 0, 1, 0, true, "exit code 1: retryable"));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  node1 = node_entry(h.only("admin-host", "status"), "node-1");
  CHECK(node1.at("attempt") == 0);
  CHECK_FALSE(node1.contains("elapsedMs"));
  CHECK_FALSE(node1.contains("telemetry"));
  h.advance(std::chrono::seconds(10));  // the restart's backoff, then the checks again
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  node1 = node_entry(h.only("admin-host", "status"), "node-1");
  CHECK(node1.at("state") == "checking");
  CHECK(node1.at("attempt") == 1);  // the attempt waiting to start
  CHECK_FALSE(node1.contains("elapsedMs"));
  for (const char* node : {"node-0", "node-1", "node-2"}) h.checks(node);
  h.advance(std::chrono::milliseconds(2000));
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  node1 = node_entry(h.only("admin-host", "status"), "node-1");
  INFO(node1.dump());
  CHECK(node1.at("state") == "running");
  CHECK(node1.at("attempt") == 1);
  CHECK(node1.at("elapsedMs") == 2000);
}

TEST_CASE("status shows the ETTR so far once the coordinator's launcher read the account") {
  MachineHarness h(test_plan());
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  Json status = h.only("admin-host", "status");
  CHECK_FALSE(status.contains("ettrBasisPoints"));
  CHECK_FALSE(status.contains("goodputJournals"));
  GoodputReading reading;
  reading.ettr = 0.91237;
  reading.journals = 3;
  h.machine.goodput(reading);
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  status = h.only("admin-host", "status");
  CHECK(status.at("ettrBasisPoints") == 9124);
  CHECK(status.at("goodputJournals") == 3);
  // Out of range (a sum rounded above all) is held to [0, 1].
  reading.ettr = 1.0000001;
  h.machine.goodput(reading);
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  CHECK(h.only("admin-host", "status").at("ettrBasisPoints") == 10000);
}

}  // namespace status_report_test
