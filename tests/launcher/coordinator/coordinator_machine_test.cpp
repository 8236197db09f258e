#include "launcher/coordinator/coordinator_machine.h"

#include <catch2/catch.hpp>

#include "launcher/net/heartbeat_rhythm.h"
#include "libpai/placement.h"
#include "machine_harness.h"

namespace coordinator_machine_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;


TEST_CASE("three nodes rendezvous - each is assigned its instance and started") {
  MachineHarness h;
  h.join("spare-0");
  h.join_all();

  for (int i = 0; i < 3; ++i) {
    const std::string node = "node-" + std::to_string(i);
    const Json assign = h.only(node, "assign");
    CHECK(assign.at("instance") == i);
    const auto hosts = assigned_hosts(h.plan, assign);
    REQUIRE(hosts.size() == 3);
    CHECK(hosts[0].name == "node-0");
    CHECK(hosts[0].address == "10.0.0.1");
    CHECK(hosts[0].slots == 8);
    CHECK(hosts[2].name == "node-2");
    const Json start = h.only(node, "start");
    CHECK(start == Json{{"type", "start"}, {"instance", i}, {"attempt", 0}});
  }
  CHECK(h.sent("spare-0", "assign").empty());
  CHECK(h.only("spare-0", "standby") == Json{{"type", "standby"}});

  // The hosts place exactly as the compiler placed them: ranks and MASTER_ADDR agree.
  pai::Plan replaced = h.plan;
  pai::place(replaced, assigned_hosts(h.plan, h.only("node-1", "assign")));
  REQUIRE(replaced.placements.size() == 3);
  CHECK(replaced.placements[1].first_rank == 2);
  CHECK(replaced.placements[2].first_rank == 4);
  CHECK(replaced.master.address == "10.0.0.1");
  CHECK(replaced.master.port == h.plan.master.port);

  const auto assignment = h.records("assignment");
  REQUIRE(assignment.size() == 1);
  CHECK(assignment[0].line.rfind(
            "rendezvous complete: 3 nodes ready after 0s; MASTER_ADDR 10.0.0.1:", 0) == 0);
  CHECK(assignment[0].fields.at("master").at("host") == "node-0");
  CHECK(h.records("start").at(0).line == "starting worker-0, worker-1 and ps-0 (attempt 0)");
}

TEST_CASE("a node name outside the plan is rejected") {
  MachineHarness h;
  h.join("gpu-999", passing_checks(), "10.0.9.9");
  CHECK(h.closed("gpu-999"));
  const auto rejected = h.records("peer-rejected");
  REQUIRE(rejected.size() == 1);
  CHECK(rejected[0].line ==
        "rejected launcher gpu-999 from 10.0.9.9: node gpu-999 is not a host or spare of job "
        "test-job");
  CHECK(h.records("join").empty());
}

TEST_CASE("a second launcher claiming a connected node is rejected") {
  MachineHarness h;
  h.join("node-1");
  const int first = h.sessions.at("node-1");
  h.clear();
  h.join("node-1");
  CHECK(h.closed("node-1"));
  CHECK(h.records("peer-rejected").at(0).fields.at("reason") ==
        "node node-1 is already connected from 10.0.0.2");
  // The first connection still holds the node.
  h.clear();
  h.sessions["node-1"] = first;
  h.disconnect("node-1");
  CHECK(h.records("disconnected").size() == 1);
}

TEST_CASE("a launcher connecting from another address than its plan host is rejected") {
  MachineHarness h;
  h.join("node-1", passing_checks(), "10.0.0.77");
  CHECK(h.closed("node-1"));
  CHECK(h.records("peer-rejected").at(0).fields.at("reason") ==
        "claims node node-1 (address 10.0.0.2) but connects from 10.0.0.77");
}

TEST_CASE("an IPv4-mapped peer address matches its plan host") {
  MachineHarness h;
  h.join("node-1", passing_checks(), "::ffff:10.0.0.2");
  CHECK_FALSE(h.closed("node-1"));
  CHECK(h.records("join").size() == 1);
}

TEST_CASE("with addresses from peers the assignment carries the addresses nodes came from") {
  CoordinatorSettings settings;
  settings.addresses_from_peers = true;
  MachineHarness h(pai::testing::make_test_plan(), settings);
  h.join("node-0", passing_checks(), "172.16.0.10");
  h.join("node-1", passing_checks(), "172.16.0.11");
  h.join("node-2", passing_checks(), "172.16.0.12");
  const auto hosts = assigned_hosts(h.plan, h.only("node-2", "assign"));
  CHECK(hosts[0].address == "172.16.0.10");
  CHECK(hosts[1].address == "172.16.0.11");
  CHECK(h.records("assignment").at(0).fields.at("master").at("address") == "172.16.0.10");
}

TEST_CASE("a join naming another node than the authenticated one is rejected") {
  MachineHarness h;
  const int id = h.connect("node-1");
  h.receive(id, Json{{"type", "join"}, {"node", "node-2"}, {"checks", Json::array()}, {"pid", 1}});
  CHECK(h.closed("node-1"));
  CHECK(h.records("peer-rejected").at(0).fields.at("reason") ==
        "join names node node-2 but the connection authenticated as node-1");
}

TEST_CASE("a node whose plan differs from the coordinator's is refused - naming both seals") {
  const std::string ours = "hmac-sha256:" + std::string(64, 'a');
  const std::string theirs = "hmac-sha256:" + std::string(64, 'b');
  pai::Plan plan = pai::testing::make_test_plan();
  plan.seal = ours;
  MachineHarness h(plan);
  const auto join_sealed = [&](const std::string& node, const std::string& seal) {
    const int id = h.connect(node);
    Json join{{"type", "join"}, {"node", node}, {"checks", passing_checks()}, {"pid", 7}};
    if (!seal.empty()) join["seal"] = seal;
    h.receive(id, join);
  };
  join_sealed("node-0", ours);
  CHECK_FALSE(h.closed("node-0"));
  CHECK(h.records("join").size() == 1);

  join_sealed("node-1", theirs);
  CHECK(h.closed("node-1"));
  const std::string reason =
      "node node-1 runs another plan than the coordinator: its plan.json has seal " + theirs +
      ", the coordinator's seal " + ours +
      "; give every node the plan.json and job.token of one pai-compile run";
  const auto rejected = h.records("peer-rejected");
  REQUIRE(rejected.size() == 1);
  CHECK(rejected[0].fields.at("reason") == reason);
  CHECK(rejected[0].line == "rejected launcher node-1 from 10.0.0.2: " + reason);
  // The node hears why and exits 2 (node_agent.cpp's finish()).
  const Json finish = h.only("node-1", "finish");
  CHECK(finish.at("exitCode") == 2);
  CHECK(finish.at("reason") == "refused by the coordinator: " + reason);
  CHECK(h.records("join").size() == 1);

  // A launcher that sends no seal has no plan of this job either.
  join_sealed("node-2", "");
  CHECK(h.closed("node-2"));
  CHECK(h.records("peer-rejected").at(1).fields.at("reason") ==
        "node node-2 runs another plan than the coordinator: its plan.json has no seal, the "
        "coordinator's seal " +
            ours + "; give every node the plan.json and job.token of one pai-compile run");
}

TEST_CASE("a launcher must join before anything else") {
  MachineHarness h;
  const int id = h.connect("node-1");
  h.receive(id, Json{{"type", "heartbeat"}, {"instances", Json::array()}});
  CHECK(h.closed("node-1"));
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "heartbeat: type: a launcher must send join first");
}

TEST_CASE("an unknown peer kind is rejected") {
  MachineHarness h;
  h.connect("intruder", "10.9.9.9", "observer");
  CHECK(h.closed("intruder"));
  CHECK(h.records("peer-rejected").at(0).fields.at("reason") == "unknown peer kind \"observer\"");
}

TEST_CASE("malformed messages close their connection and the machine serves the others") {
  MachineHarness h;
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();

  SECTION("a missing field") {
    h.clear();
    h.receive("node-0", Json{{"type", "stopped"}});
    CHECK(h.records("protocol-error").at(0).fields.at("error") == "stopped: instance: missing");
    CHECK(h.closed("node-0"));
  }
  SECTION("a mistyped field") {
    h.clear();
    h.receive("node-0", Json{{"type", "heartbeat"}, {"instances", "many"}});
    CHECK(h.records("protocol-error").at(0).fields.at("error") ==
          "heartbeat: instances: expected an array");
    CHECK(h.closed("node-0"));
  }
  SECTION("a nested mistyped field") {
    h.clear();
    Json bad = exited(0, 0, 1, 0, true, "x");
    bad["status"]["code"] = "one";
    h.receive("node-0", bad);
    CHECK(h.records("protocol-error").at(0).fields.at("error") ==
          "exited.status: code: expected an integer");
    CHECK(h.closed("node-0"));
  }
  SECTION("an unknown type") {
    h.clear();
    h.receive("node-0", Json{{"type", "teleport"}});
    CHECK(h.records("protocol-error").at(0).fields.at("error") ==
          "teleport: type: not a launcher message");
    CHECK(h.closed("node-0"));
  }
  SECTION("not an object") {
    h.clear();
    h.receive("node-0", Json::array({1, 2}));
    CHECK(h.closed("node-0"));
  }
  SECTION("a report for another node's instance") {
    h.clear();
    h.receive("node-0", Json{{"type", "stopped"}, {"instance", 1}});
    CHECK(h.records("protocol-error").at(0).fields.at("error") ==
          "stopped: instance: node node-0 does not run instance 1");
    CHECK(h.closed("node-0"));
  }
  SECTION("a control request a launcher may not make") {
    h.clear();
    h.receive("node-0", Json{{"type", "status"}});
    CHECK(h.closed("node-0"));
  }
  SECTION("an unknown control request") {
    h.clear();
    h.receive(admin, Json{{"type", "join"}, {"node", "x"}});
    CHECK(h.records("protocol-error").at(0).fields.at("error") ==
          "join: type: not a control request");
    CHECK(h.closed("admin-host"));
    CHECK_FALSE(h.closed("node-0"));
    return;
  }
  // The launcher is treated as lost; everyone else is served on.
  CHECK(h.records("node-lost").size() == 1);
  CHECK(h.sent("node-1", "stop").size() == 1);
  h.clear();
  h.receive(admin, Json{{"type", "status"}});
  CHECK(h.sent_to(admin, "status").size() == 1);
  CHECK_FALSE(h.machine.finished());
}

TEST_CASE("heartbeats go to every launcher every other interval") {
  MachineHarness h;
  h.join("node-0");
  h.join("spare-0");
  h.control();
  REQUIRE(h.machine.next_deadline().has_value());
  CHECK(*h.machine.next_deadline() <= h.start + 2s);
  h.clear();
  h.advance(1999ms);
  CHECK(h.sent("node-0", "heartbeat").empty());
  h.advance(1ms);
  CHECK(h.sent("node-0", "heartbeat").size() == 1);
  CHECK(h.sent("spare-0", "heartbeat").size() == 1);
  CHECK(h.sent("admin-host", "heartbeat").empty());
  h.advance(1s);
  CHECK(h.sent("node-0", "heartbeat").size() == 1);
  h.advance(1s);
  CHECK(h.sent("node-0", "heartbeat").size() == 2);
  // Within the 5 intervals a launcher of this plan waits for its coordinator.
  CHECK(pai::net::coordinator_misses(h.plan) == 5);
}

TEST_CASE("the coordinator of 8,192 nodes beats each launcher every 8 intervals") {
  pai::Plan plan = pai::testing::make_test_plan();
  while (plan.hosts.size() + plan.spares.size() < 8192) {
    const auto i = plan.spares.size();
    plan.spares.push_back(pai::Host{"spare-" + std::to_string(i),
                                    "10.1." + std::to_string(i / 250) + "." +
                                        std::to_string(i % 250 + 1),
                                    8});
  }
  MachineHarness h(plan);
  h.join("node-0");
  h.join("spare-8000");
  h.clear();
  h.advance(7999ms);
  CHECK(h.sent("node-0", "heartbeat").empty());
  h.advance(1ms);
  CHECK(h.sent("node-0", "heartbeat").size() == 1);
  CHECK(h.sent("spare-8000", "heartbeat").size() == 1);
  h.advance(7999ms);
  CHECK(h.sent("node-0", "heartbeat").size() == 1);
  h.advance(1ms);
  CHECK(h.sent("node-0", "heartbeat").size() == 2);
  // The launchers of this plan wait the 8 intervals and 3 more.
  CHECK(pai::net::coordinator_misses(plan) == 11);
}

TEST_CASE("a coordinator that beat no one for longer than its launchers wait says it stalled") {
  // Its process stopped for 8 s: its launchers gave up on it after 5 intervals and closed
  // their connections. That is no loss of their nodes: no node is blamed, nothing restarts.
  for (const bool ticked_first : {false, true}) {
    MachineHarness h;
    h.join("spare-0");
    h.join_all();
    REQUIRE(h.records("start").size() == 3);
    h.clear();
    h.now += 8s;                       // nothing ran meanwhile
    if (ticked_first) h.advance(0ms);  // its timer first, then the closed connections
    h.disconnect("node-1", "connection reset by peer");
    h.disconnect("node-2", "connection reset by peer");
    INFO("ticked first: " << ticked_first);
    const auto failed = h.records("job-failed");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0].fields.at("reason") ==
          "this coordinator sent no heartbeat for 8.0s (its process was stopped or its node "
          "stalled), longer than its launchers wait for it (5.0s): they ended the job on their "
          "side, nothing can be restarted from here");
    CHECK(h.records("node-lost").empty());
    CHECK(h.records("restart").empty());
    CHECK(h.machine.finished());
  }
}

TEST_CASE("a coordinator late by less than its launchers wait loses a closed node as before") {
  MachineHarness h;
  h.join("spare-0");
  h.join_all();
  h.clear();
  h.now += 3s;
  h.disconnect("node-1", "connection reset by peer");
  CHECK(h.records("job-failed").empty());
  CHECK(h.records("node-lost").size() == 1);
}

TEST_CASE("a finished machine answers nothing and closes new connections") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.restart_enabled = false;
  MachineHarness h(plan);
  h.join_all();
  h.receive("node-1", exited(1, 0, 1, 0, false, "exit code 1: not retryable"));
  h.stopped("node-0", 0);
  h.stopped("node-1", 1);
  h.stopped("node-2", 2);
  REQUIRE(h.machine.finished());
  CHECK_FALSE(h.machine.next_deadline().has_value());
  h.clear();
  h.advance(10s);
  CHECK(h.log.empty());
  h.connect("node-late");
  CHECK(h.closed("node-late"));
}

}  // namespace coordinator_machine_test
