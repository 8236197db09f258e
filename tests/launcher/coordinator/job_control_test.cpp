#include "launcher/coordinator/job_control.h"

#include <catch2/catch.hpp>
#include <csignal>

#include "machine_harness.h"

namespace job_control_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

pai::Plan test_plan() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.max_tolerated_failure_rate = -1;
  return plan;
}

}  // namespace

TEST_CASE("stop pauses the job and start resumes it with the next attempt, no restart used") {
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
          Json{{"type", "start"}, {"instance", i}, {"attempt", 1}});
  }
  CHECK(h.sent("node-0", "run-checks").empty());
  h.receive(admin, Json{{"type", "status"}});
  const Json status = h.only("admin-host", "status");
  for (const Json& node : status.at("nodes")) CHECK(node.at("restarts") == 0);

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

TEST_CASE("checkpoint-now sends the running nodes a numbered request - journaled, answered") {
  pai::Plan plan = test_plan();
  plan.fault_tolerance.checkpoint_plan.interval_seconds = 3600;
  MachineHarness h(plan);
  const int admin = h.control();
  h.receive(admin, Json{{"type", "checkpoint-now"}});
  CHECK(h.only("admin-host", "error").at("text") ==
        "the job has not started yet: the rendezvous is not complete");
  h.join_all();
  h.clear();
  h.receive(admin, Json{{"type", "checkpoint-now"}});
  for (int i = 0; i < 3; ++i) {
    CHECK(h.only("node-" + std::to_string(i), "checkpoint-advice") ==
          Json{{"type", "checkpoint-advice"}, {"intervalSeconds", 3600}, {"request", 1}});
  }
  CHECK(h.only("admin-host", "ok").at("text") ==
        "checkpoint 1 requested from 3 running instances: their ranks' should_checkpoint() "
        "answers True at their next step");
  const auto records = h.records("checkpoint-requested");
  REQUIRE(records.size() == 1);
  CHECK(records[0].line == "checkpoint 1 requested by admin-host from 3 running instances");
  CHECK(records[0].fields.at("request") == 1);

  h.clear();
  h.receive(admin, Json{{"type", "checkpoint-now"}});
  CHECK(h.only("node-2", "checkpoint-advice").at("request") == 2);

  // Paused: nothing runs to save.
  h.receive(admin, Json{{"type", "stop"}});
  h.clear();
  h.receive(admin, Json{{"type", "checkpoint-now"}});
  CHECK(h.only("admin-host", "error").at("text") == "the job is paused; start it first");
  CHECK(h.sent("node-0", "checkpoint-advice").empty());
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

Json inject(const std::string& instance, int rank, const std::string& fault, int seconds) {
  return Json{{"type", "inject"},
              {"instance", instance},
              {"rank", rank},
              {"fault", fault},
              {"seconds", seconds}};
}

TEST_CASE("a drill's fault goes to the instance's node - journaled with its global rank") {
  MachineHarness h(test_plan());
  const int admin = h.control();
  h.receive(admin, inject("worker-1", 1, "rank-hang", 30));
  CHECK(h.only("admin-host", "error").at("text") ==
        "the job has not started yet: the rendezvous is not complete");
  h.join_all();
  h.clear();
  h.receive(admin, inject("worker-1", 1, "rank-hang", 30));
  CHECK(h.only("node-1", "inject") == Json{{"type", "inject"},
                                           {"instance", 1},
                                           {"rank", 1},
                                           {"fault", "rank-hang"},
                                           {"seconds", 30}});
  CHECK(h.only("admin-host", "ok").at("text") == "rank-hang into worker-1 rank 3 on node-1");
  const auto records = h.records("fault-injected");
  REQUIRE(records.size() == 1);
  CHECK(records[0].line ==
        "drill: rank-hang into worker-1 rank 3 on node-1 (requested by admin-host)");
  CHECK(records[0].fields.at("rank") == 3);
  CHECK(records[0].fields.at("seconds") == 30);
  CHECK(records[0].fields.at("node") == "node-1");
  CHECK(records[0].fields.at("by") == "admin-host");

  // Faults that are not bounded journal no seconds; node-loss names the launcher.
  h.clear();
  h.receive(admin, inject("worker-1", 0, "rank-kill", 99));
  CHECK(h.records("fault-injected").at(0).fields.at("seconds") == 0);
  h.clear();
  h.receive(admin, inject("worker-1", 0, "node-loss", 0));
  CHECK(h.only("admin-host", "ok").at("text") == "node-loss into the launcher of node-1");
  CHECK(h.records("fault-injected").at(0).fields.at("rank") == -1);
}

TEST_CASE(
    "a drill's fault is refused for a rank the instance lacks, a paused job, a stopped "
    "instance, and the coordinator's own node") {
  CoordinatorSettings settings;
  settings.own_node = "node-0";
  MachineHarness h(test_plan(), settings);
  h.join_all();
  const int admin = h.control();
  auto refused = [&](const Json& request) {
    h.clear();
    h.receive(admin, request);
    const std::string text = h.only("admin-host", "error").at("text");
    CHECK(h.sent("node-0", "inject").empty());
    CHECK(h.sent("node-1", "inject").empty());
    CHECK(h.sent("node-2", "inject").empty());
    CHECK(h.records("fault-injected").empty());
    return text;
  };
  CHECK(refused(inject("worker-1", 2, "rank-kill", 0)) == "worker-1 has local ranks 0 to 1, not 2");
  CHECK(refused(inject("ps-0", 1, "rank-kill", 0)) == "ps-0 has local ranks 0 to 0, not 1");
  CHECK(refused(inject("worker-7", 0, "rank-kill", 0)) ==
        "no instance named \"worker-7\" in the job");
  CHECK(refused(inject("worker-0", 0, "node-loss", 0)) ==
        "node node-0 serves the coordinator: losing it ends the job, so a node-loss drill takes "
        "another instance's node");
  // A rank of that node is fine.
  h.clear();
  h.receive(admin, inject("worker-0", 0, "rank-kill", 0));
  CHECK(h.only("node-0", "inject").at("fault") == "rank-kill");
  // An instance that failed and waits for its restart.
  h.receive("node-1", exited(1, 0, 0, SIGKILL, true, "signal 9 (SIGKILL): retryable"));
  CHECK(refused(inject("worker-1", 0, "rank-kill", 0)) == "worker-1 is not running");
  h.receive(admin, Json{{"type", "stop"}});
  CHECK(refused(inject("worker-0", 0, "rank-kill", 0)) == "the job is paused; start it first");
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
  CHECK(h.only("spare-0", "start") == Json{{"type", "start"}, {"instance", 1}, {"attempt", 1}});
  CHECK(h.only("node-0", "start").at("attempt") == 1);
}

TEST_CASE("cancel ends the job as cancelled on every node - from a client or a node's signal") {
  for (const bool from_node : {false, true}) {
    MachineHarness h(test_plan());
    h.join_all();
    const int admin = h.control();
    h.clear();
    if (from_node) {
      h.receive("node-1", Json{{"type", "cancel"}, {"signal", SIGINT}});
    } else {
      h.receive(admin, Json{{"type", "cancel"}});
      CHECK(h.only("admin-host", "ok").at("text") == "cancelling the job");
    }
    const std::string who = from_node ? "SIGINT on node-1" : "admin-host";
    const int code = from_node ? 130 : 143;
    for (int i = 0; i < 3; ++i) {
      CHECK(h.only("node-" + std::to_string(i), "finish") == Json{{"type", "finish"},
                                                                   {"exitCode", code},
                                                                   {"reason", "cancelled by " + who},
                                                                   {"cancelled", true}});
    }
    CHECK(h.records("job-cancelled").at(0).line == "job cancelled by " + who);
    CHECK(h.records("job-failed").empty());
    REQUIRE(h.finish().has_value());
    CHECK(h.finish()->exit_code == code);
    // The nodes leaving now are not lost nodes: nothing restarts.
    h.clear();
    h.disconnect("node-1", "closed");
    CHECK(h.records("restart").empty());
    CHECK(h.records("node-lost").empty());
  }
}

TEST_CASE("cancel before the rendezvous completed lets the joined launchers go") {
  MachineHarness h(test_plan());
  h.join("node-0");
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "cancel"}});
  CHECK(h.only("node-0", "finish").at("cancelled") == true);
  CHECK(h.finish()->exit_code == 143);
}

}  // namespace job_control_test
