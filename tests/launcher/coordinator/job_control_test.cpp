#include "launcher/coordinator/job_control.h"

#include <catch2/catch.hpp>
#include <csignal>

#include "machine_harness.h"

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

pai::Plan test_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  return plan;
}

}  // namespace

TEST_CASE("stop pauses the job and start resumes it with the same attempts") {
  MachineHarness h(test_plan());
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "stop"}});
  CHECK(h.only("admin-host", "ok").at("text") == "paused by admin-host: stopping 3 instances");
  for (int i = 0; i < 3; ++i) {
    const Json stop = h.only("node-" + std::to_string(i), "stop");
    CHECK(stop.at("signal") == SIGTERM);
    CHECK(stop.at("reason") == "paused by admin-host");
  }
  CHECK(h.records("paused").at(0).line == "job paused by admin-host: stopping 3 instances");

  // Exits while paused are not failures of the job.
  h.clear();
  h.receive("node-1", exited(1, 0, 0, SIGTERM, true, "signal 15", true));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  CHECK(h.records("restart").empty());
  CHECK_FALSE(h.finish().has_value());
  h.receive(admin, Json{{"type", "status"}});
  CHECK(h.only("admin-host", "status").at("phase") == "paused");

  h.clear();
  h.receive(admin, Json{{"type", "stop"}});
  CHECK(h.only("admin-host", "error").at("text") == "the job is already paused");

  h.clear();
  h.receive(admin, Json{{"type", "start"}});
  CHECK(h.only("admin-host", "ok").at("text") == "resumed by admin-host: starting 3 instances");
  for (int i = 0; i < 3; ++i) {
    CHECK(h.only("node-" + std::to_string(i), "start") ==
          Json{{"type", "start"}, {"instance", i}, {"attempt", 0}});
  }
  CHECK(h.sent("node-0", "run-checks").empty());

  h.clear();
  h.receive(admin, Json{{"type", "start"}});
  CHECK(h.only("admin-host", "error").at("text") == "the job is not paused");
}

TEST_CASE("start waits for the paused instances to finish stopping") {
  MachineHarness h(test_plan());
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "stop"}});
  h.clear();
  h.receive(admin, Json{{"type", "start"}});
  CHECK(h.sent("node-0", "start").empty());
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  CHECK(h.sent("node-0", "start").empty());  // sync: the job starts together
  h.stopped("node-2", 2);
  CHECK(h.sent("node-0", "start").size() == 1);
  CHECK(h.sent("node-2", "start").size() == 1);
}

TEST_CASE("stop and start before the job runs are refused") {
  MachineHarness h(test_plan());
  const int admin = h.control();
  h.receive(admin, Json{{"type", "stop"}});
  CHECK(h.only("admin-host", "error").at("text") ==
        "the job has not started yet: the rendezvous is not complete");
}

TEST_CASE("kill sends a kill to the instance's node - the failure then flows as usual") {
  MachineHarness h(test_plan());
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "kill"}, {"instance", "worker-1"}});
  CHECK(h.only("node-1", "kill") == Json{{"type", "kill"}, {"instance", 1}});
  CHECK(h.only("admin-host", "ok").at("text") == "killing worker-1 on node-1");
  CHECK(h.records("kill").at(0).line == "killing worker-1 on node-1 (requested by admin-host)");
  h.clear();
  h.receive("node-1", exited(1, 0, 0, SIGKILL, true, "signal 9 (SIGKILL): retryable"));
  CHECK(h.sent("node-0", "stop").size() == 1);
}

TEST_CASE("kill of an instance that does not exist is an error reply") {
  MachineHarness h(test_plan());
  h.join_all();
  const int admin = h.control();
  for (const char* name : {"worker-9", "worker", "ps-x", "-1", "worker-99999999999"}) {
    h.clear();
    h.receive(admin, Json{{"type", "kill"}, {"instance", name}});
    CHECK(h.only("admin-host", "error").at("text") ==
          std::string("no instance named \"") + name + "\" in the job");
    CHECK(h.sent("node-1", "kill").empty());
  }
  h.clear();
  h.receive(admin, Json{{"type", "kill"}, {"instance", 1}});
  CHECK(h.closed("admin-host"));
}

TEST_CASE("a node lost while paused is replaced by a spare when the job resumes") {
  MachineHarness h(test_plan());
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "stop"}});
  h.stopped("node-0", 0);
  h.stopped("node-2", 2);
  h.disconnect("node-1", "missed 5 heartbeats");
  CHECK(h.records("restart").empty());
  h.clear();
  h.receive(admin, Json{{"type", "start"}});
  CHECK(h.records("node-replaced").at(0).fields.at("spare") == "spare-0");
  CHECK(h.only("spare-0", "assign").at("instance") == 1);
  CHECK(h.only("spare-0", "start") == Json{{"type", "start"}, {"instance", 1}, {"attempt", 0}});
  CHECK(h.only("node-0", "start").at("attempt") == 0);
}
