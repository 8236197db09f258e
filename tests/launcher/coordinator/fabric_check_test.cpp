#include "launcher/coordinator/fabric_check.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <functional>
#include <set>

#include "launcher/net/message.h"
#include "machine_harness.h"

namespace fabric_check_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;
using pai::launcher::coordinator::Json;

namespace {

// The test plan (node-0..2 hold instances, spare-0 is the spare) with the fabric check on and
// a floor of 5 Gbit/s; the TCP engine alone unless `nccl` (the workers, node-0, node-1 and the
// spare, have 8 GPUs; ps on node-2 none).
pai::Plan fabric_plan(bool nccl = false) {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.sanity_check.fabric.enabled = true;
  plan.sanity_check.fabric.min_tcp_gbps = 5;
  plan.sanity_check.fabric.nccl = nccl;
  return plan;
}

// Gbit/s between two nodes; < 0: the connector reports that error instead.
using Link = std::function<double(const std::string& listener, const std::string& connector)>;
// GB/s of NCCL bus bandwidth between two nodes, for the pairs that run NCCL.
using Bus = Link;

double healthy_bus(const std::string&, const std::string&) { return 45; }

// The ncclUniqueId a listener "makes": its name, padded.
std::string nccl_id_of(const std::string& node) {
  std::string id = node;
  id.resize(pai::net::kNcclUniqueIdBytes, '.');
  return id;
}

// Plays the launchers' part: every fabric-listen sent since the last clear() is answered
// with fabric-listening (with an ncclId when asked for NCCL), every fabric-connect with a
// fabric-result from `link` (and `bus` when asked for NCCL), until the coordinator asks
// nothing more. Returns the pairs measured, "listener-connector".
std::vector<std::string> play(MachineHarness& h, const Link& link, const Bus& bus = healthy_bus) {
  std::vector<std::string> measured;
  std::set<std::string> answered;
  for (bool more = true; more;) {
    more = false;
    const std::vector<Action> log = h.log;
    for (const Action& a : log) {
      const auto* s = std::get_if<Send>(&a);
      if (s == nullptr) continue;
      const std::string type = s->message.value("type", "");
      if (type != "fabric-listen" && type != "fabric-connect") continue;
      const std::string id = type + s->message.dump();
      if (!answered.insert(id).second) continue;
      more = true;
      std::string node;
      for (const auto& [name, session] : h.sessions) {
        if (session == s->session) node = name;
      }
      const Json& m = s->message;
      if (type == "fabric-listen") {
        Json listening{{"type", "fabric-listening"},
                       {"round", m["round"]},
                       {"pair", m["pair"]},
                       {"address", ""},
                       {"port", 29999}};
        if (m.contains("ncclRanks")) {
          listening["ncclId"] = pai::net::base64_encode(nccl_id_of(node));
        }
        h.receive(node, listening);
        continue;
      }
      std::string listener;
      for (const pai::Host& host : h.plan.hosts) {
        if (host.address == m["address"]) listener = host.name;
      }
      for (const pai::Host& host : h.plan.spares) {
        if (host.address == m["address"]) listener = host.name;
      }
      measured.push_back(listener + "-" + node);
      const double gbps = link(listener, node);
      Json result{{"type", "fabric-result"},
                  {"round", m["round"]},
                  {"pair", m["pair"]},
                  {"error", ""},
                  {"outKbps", 0},
                  {"inKbps", 0},
                  {"latencyNs", 25'000}};
      if (gbps < 0) {
        result["error"] = "connect to " + m["address"].get<std::string>() + ": refused";
      } else {
        result["outKbps"] = static_cast<std::int64_t>(gbps * 1e6);
        result["inKbps"] = static_cast<std::int64_t>(gbps * 1e6) + 1000;
        if (m.contains("ncclRanks")) {
          result["busMBps"] = static_cast<std::int64_t>(bus(listener, node) * 1e3);
        }
      }
      h.receive(node, result);
    }
  }
  return measured;
}

double healthy(const std::string&, const std::string&) { return 9.4; }

// Every pair `bad` is in runs at 1 Gbit/s.
Link slow(const std::string& bad) {
  return [bad](const std::string& a, const std::string& b) {
    return a == bad || b == bad ? 1.0 : 9.4;
  };
}

}  // namespace

TEST_CASE("the fabric check runs between the rendezvous and the first assignment") {
  MachineHarness h(fabric_plan());
  h.join("spare-0");
  h.join_all();
  // Round 1 pairs neighbours in node order; the listeners are asked first.
  CHECK(h.sent("node-0", "assign").empty());
  CHECK(h.sent("node-0", "fabric-listen").size() == 1);
  CHECK(h.sent("node-2", "fabric-listen").size() == 1);
  CHECK(h.sent("node-1", "fabric-listen").empty());
  REQUIRE(h.records("fabric-round").size() == 1);
  CHECK(h.records("fabric-round")[0].fields["pairs"] ==
        Json::parse(R"([["node-0","node-1"],["node-2","spare-0"]])"));

  const auto measured = play(h, healthy);
  // Round 2 pairs each node with one it has not met: 2 rounds of 2 pairs.
  CHECK(measured.size() == 4);
  CHECK(h.records("fabric-round").size() == 2);
  CHECK(h.records("fabric-pair").size() == 4);
  const auto verdict = h.records("fabric-verdict");
  REQUIRE(verdict.size() == 1);
  CHECK(verdict[0].fields["healthy"] == true);
  CHECK(verdict[0].line.find("fabric check passed: 4 nodes in 2 rounds, median 9.40 Gbit/s") == 0);
  // Then the job begins: every instance is assigned, the spare stands by.
  CHECK(h.sent("node-0", "assign").size() == 1);
  CHECK(h.sent("node-2", "assign").size() == 1);
  CHECK(h.sent("spare-0", "standby").size() == 1);
  CHECK(h.records("node-excluded").empty());
}

TEST_CASE("the all-nodes round measures every node at once and reports congestion") {
  pai::Plan plan = fabric_plan();
  plan.sanity_check.fabric.all_nodes = true;
  MachineHarness h(plan);
  h.join("spare-0");
  h.join_all();
  // Alone every pair reaches 9.4 Gbit/s; at once across the halves (node-0 with node-2,
  // node-1 with spare-0) only 2.
  int round = 0;
  const auto measured = play(h, [&](const std::string& a, const std::string& b) {
    const bool across = (a == "node-0" && b == "node-2") || (a == "node-1" && b == "spare-0");
    round = static_cast<int>(h.records("fabric-round").size());
    return across && round == 3 ? 2.0 : 9.4;
  });
  CHECK(measured.size() == 6);
  const auto rounds = h.records("fabric-round");
  REQUIRE(rounds.size() == 3);
  CHECK(rounds[2].fields["allNodes"] == true);
  CHECK(rounds[2].fields["pairs"] == Json::parse(R"([["node-0","node-2"],["node-1","spare-0"]])"));
  CHECK(rounds[2].line ==
        "fabric check round 3 (all nodes at once, across the halves of the plan): 2 pairs of 4 "
        "nodes");
  // The pair rounds' verdict stands; the congestion is a warning and excludes nobody.
  const auto verdict = h.records("fabric-verdict");
  REQUIRE(verdict.size() == 1);
  CHECK(verdict[0].line.find("fabric check passed: 4 nodes in 2 rounds, median 9.40 Gbit/s") == 0);
  const auto congestion = h.records("fabric-congestion");
  REQUIRE(congestion.size() == 1);
  CHECK(congestion[0].fields["congested"] == true);
  CHECK(congestion[0].fields["slowPairs"] ==
        Json::parse(R"([["node-0","node-2"],["node-1","spare-0"]])"));
  CHECK(congestion[0].line.rfind(
            "warning: all nodes at once: 2 pairs, median 2.00 Gbit/s, 21% of what their nodes "
            "reached in pairs: the fabric is congested; slow under load: node-0 <-> node-2 (2.00 "
            "of 9.40)",
            0) == 0);
  CHECK(h.records("node-excluded").empty());
  CHECK(h.sent("node-0", "assign").size() == 1);
  CHECK(h.sent("spare-0", "standby").size() == 1);
}

TEST_CASE("the connector is sent the listener's address, its own when it named none") {
  MachineHarness h(fabric_plan());
  h.join("spare-0");
  h.join_all();
  h.receive("node-0", Json{{"type", "fabric-listening"},
                           {"round", 1},
                           {"pair", 0},
                           {"address", "10.9.0.1"},
                           {"port", 29990}});
  const Json connect = h.only("node-1", "fabric-connect");
  CHECK(connect["address"] == "10.9.0.1");
  CHECK(connect["port"] == 29990);
  // The pair's key is the one the listener was given.
  CHECK(connect["key"] == h.only("node-0", "fabric-listen")["key"]);
  CHECK(connect["key"].get<std::string>().size() == 32);
  h.receive("node-2", Json{{"type", "fabric-listening"},
                           {"round", 1},
                           {"pair", 1},
                           {"address", ""},
                           {"port", 29991}});
  CHECK(h.only("spare-0", "fabric-connect")["address"] == "10.0.0.3");
  // The keys of two pairs differ.
  CHECK(h.only("spare-0", "fabric-connect")["key"] != connect["key"]);
}

TEST_CASE("a node slow with every partner is excluded and a spare takes its instance") {
  MachineHarness h(fabric_plan());
  h.join("spare-0");
  h.join_all();
  play(h, slow("node-1"));
  const auto excluded = h.records("node-excluded");
  REQUIRE(excluded.size() == 1);
  CHECK(excluded[0].fields["node"] == "node-1");
  CHECK(excluded[0].line.find("node-1 excluded: fabric check: node-1 is bad") == 0);
  const auto replaced = h.records("node-replaced");
  REQUIRE(replaced.size() == 1);
  CHECK(replaced[0].fields["spare"] == "spare-0");
  // The bad node is let go; the spare is assigned node-1's instance.
  CHECK(h.only("node-1", "finish")["exitCode"] == 0);
  const Json assign = h.only("spare-0", "assign");
  CHECK(assign["instance"] == 1);
  // The table is on the terminal, under the verdict.
  const auto verdict = h.records("fabric-verdict");
  REQUIRE(verdict.size() == 1);
  CHECK(verdict[0].fields["badNodes"] == Json::array({"node-1"}));
  CHECK(verdict[0].line.find("\nround  pair") != std::string::npos);
  CHECK(verdict[0].line.find("FAIL: ") != std::string::npos);
  CHECK_FALSE(h.finish());
}

TEST_CASE("without a spare the job fails with the fabric table") {
  pai::Plan plan = fabric_plan();
  plan.spares.clear();
  MachineHarness h(plan);
  h.join_all();
  play(h, slow("node-2"));
  const auto finish = h.finish();
  REQUIRE(finish);
  CHECK(finish->exit_code == 1);
  const auto failed = h.records("job-failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].fields["reason"] ==
        "the fabric check excluded nodes holding instances and no ready spare is left");
  CHECK(failed[0].line.find("node-2 is bad") != std::string::npos);
  CHECK(failed[0].line.find("round  pair") != std::string::npos);
  CHECK(h.sent("node-0", "assign").empty());
}

TEST_CASE("a spare that had not joined yet takes the instance of an excluded node") {
  MachineHarness h(fabric_plan());
  h.join_all();
  // 3 nodes: one sits out each round; node-0 fails with both partners it meets.
  play(h, [](const std::string& a, const std::string& b) {
    return a == "node-0" || b == "node-0" ? -1.0 : 9.4;
  });
  CHECK(h.records("node-excluded").size() == 1);
  CHECK(h.records("waiting-for-spare").size() == 1);
  CHECK(h.sent("node-1", "assign").empty());
  CHECK_FALSE(h.finish());
  h.clear();
  h.join("spare-0");
  // The late spare takes the instance; the check does not run again.
  CHECK(h.records("fabric-round").empty());
  CHECK(h.only("spare-0", "assign")["instance"] == 0);
  CHECK(h.sent("node-1", "assign").size() == 1);
}

TEST_CASE("pairs of GPU nodes also run NCCL - the listener's id goes to its partner") {
  MachineHarness h(fabric_plan(true));
  h.join("spare-0");
  h.join_all();
  // Round 1: node-0 (8 GPUs) with node-1 (8 GPUs), node-2 (ps, no GPU) with spare-0.
  const Json listen = h.only("node-0", "fabric-listen");
  CHECK(listen["ncclRanks"] == 16);
  CHECK(listen["ncclFirstRank"] == 0);
  CHECK_FALSE(listen.contains("ncclId"));
  CHECK_FALSE(h.only("node-2", "fabric-listen").contains("ncclRanks"));

  play(h, healthy);
  // node-1 connected to node-0 with node-0's id (play() answers with the listener's name).
  const Json connect = h.sent("node-1", "fabric-connect").at(0);
  CHECK(connect["ncclRanks"] == 16);
  CHECK(connect["ncclFirstRank"] == 8);
  CHECK(pai::net::base64_decode(connect["ncclId"].get<std::string>()) == nccl_id_of("node-0"));
  const auto pairs = h.records("fabric-pair");
  REQUIRE_FALSE(pairs.empty());
  CHECK(pairs[0].fields["busGBps"] == 45.0);
  const auto verdict = h.records("fabric-verdict");
  REQUIRE(verdict.size() == 1);
  CHECK(verdict[0].fields["healthy"] == true);
  CHECK(verdict[0].line.find("NCCL GB/s") != std::string::npos);
  CHECK(h.sent("node-0", "assign").size() == 1);
}

TEST_CASE("a node under the NCCL floor is excluded though its TCP figures pass") {
  pai::Plan plan = fabric_plan(true);
  plan.sanity_check.fabric.min_bus_gbs = 40;
  // node-2 holds a GPU role too, so that every pair runs NCCL.
  plan.roles[1].resources.gpu = 8;
  MachineHarness h(plan);
  h.join("spare-0");
  h.join_all();
  play(h, healthy, [](const std::string& a, const std::string& b) {
    return a == "node-1" || b == "node-1" ? 12.0 : 45.0;
  });
  const auto excluded = h.records("node-excluded");
  REQUIRE(excluded.size() == 1);
  CHECK(excluded[0].fields["node"] == "node-1");
  const auto verdict = h.records("fabric-verdict");
  REQUIRE(verdict.size() == 1);
  CHECK(verdict[0].line.find("FAIL: 12 GB/s NCCL bus bandwidth below the floor of 40") !=
        std::string::npos);
  CHECK(h.only("spare-0", "assign")["instance"] == 1);
}

TEST_CASE("an NCCL pair's reports must carry the id and the bus bandwidth") {
  MachineHarness h(fabric_plan(true));
  h.join("spare-0");
  h.join_all();
  const Json listening{{"type", "fabric-listening"}, {"round", 1}, {"pair", 0},
                       {"address", ""},              {"port", 29999}};
  SECTION("a listener without the id") {
    h.receive("node-0", listening);
    CHECK(h.records("protocol-error")[0].fields["error"] ==
          "fabric-listening: ncclId: missing: the pair runs NCCL");
    CHECK(h.closed("node-0"));
  }
  SECTION("a connector without the bus bandwidth") {
    Json with_id = listening;
    with_id["ncclId"] = pai::net::base64_encode(nccl_id_of("node-0"));
    h.receive("node-0", with_id);
    h.receive("node-1", Json{{"type", "fabric-result"},
                             {"round", 1},
                             {"pair", 0},
                             {"error", ""},
                             {"outKbps", 9'000'000},
                             {"inKbps", 9'000'000},
                             {"latencyNs", 1}});
    CHECK(h.records("protocol-error")[0].fields["error"] ==
          "fabric-result: busMBps: missing: the pair runs NCCL");
  }
  SECTION("an id for a pair without NCCL") {
    Json with_id = listening;
    with_id["pair"] = 1;
    with_id["ncclId"] = pai::net::base64_encode(nccl_id_of("node-2"));
    h.receive("node-2", with_id);
    CHECK(h.records("protocol-error")[0].fields["error"] ==
          "fabric-listening: ncclId: the pair runs no NCCL");
  }
}

TEST_CASE("a round whose reports do not come in time fails its pairs as timed out") {
  MachineHarness h(fabric_plan());
  h.join("spare-0");
  h.join_all();
  // Nobody answers: after the timeout (30s) and the slack, round 1's two pairs fail.
  h.advance(34s);
  CHECK(h.records("fabric-pair").empty());
  h.advance(2s);
  const auto pairs = h.records("fabric-pair");
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].fields["error"] == "no report within 35s");
  CHECK(h.records("fabric-round").size() == 2);
  // Every node failed and none passed: all are suspects, and the check goes on to round 3 and
  // then fails the job rather than start on a fabric it knows nothing about.
  h.advance(36s);
  h.advance(36s);
  REQUIRE(h.finish());
  CHECK(h.finish()->exit_code == 1);
}

TEST_CASE("a node lost during the fabric check fails its pairs at once") {
  MachineHarness h(fabric_plan());
  h.join("spare-0");
  h.join_all();
  h.disconnect("node-1", "connection closed");
  const auto pairs = h.records("fabric-pair");
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].fields["error"] == "node-1: launcher lost");
}

TEST_CASE("fabric reports are checked against what was asked of the node") {
  MachineHarness h(fabric_plan());
  h.join("spare-0");
  h.join_all();
  SECTION("a result from a node outside the pair closes its connection") {
    h.receive("node-2", Json{{"type", "fabric-result"},
                             {"round", 1},
                             {"pair", 0},
                             {"error", ""},
                             {"outKbps", 1},
                             {"inKbps", 1},
                             {"latencyNs", 1}});
    REQUIRE(h.records("protocol-error").size() == 1);
    CHECK(h.records("protocol-error")[0].fields["error"] ==
          "fabric-result: pair: this node is not in that pair");
    CHECK(h.closed("node-2"));
  }
  SECTION("the listening end may report an error but no figures") {
    h.receive("node-0", Json{{"type", "fabric-result"},
                             {"round", 1},
                             {"pair", 0},
                             {"error", ""},
                             {"outKbps", 1},
                             {"inKbps", 1},
                             {"latencyNs", 1}});
    CHECK(h.records("protocol-error")[0].fields["error"] ==
          "fabric-result: pair: the listening end sends no figures");
  }
  SECTION("a round not started yet is refused") {
    h.receive(
        "node-0",
        Json{
            {"type", "fabric-listening"}, {"round", 2}, {"pair", 0}, {"address", ""}, {"port", 1}});
    CHECK(h.records("protocol-error")[0].fields["error"] ==
          "fabric-listening: round: no fabric round 2 was asked of it");
  }
  SECTION("the listener's error fails the pair; the connector's later report is ignored") {
    h.receive("node-0", Json{{"type", "fabric-result"},
                             {"round", 1},
                             {"pair", 0},
                             {"error", "no free port"},
                             {"outKbps", 0},
                             {"inKbps", 0},
                             {"latencyNs", 0}});
    REQUIRE(h.records("fabric-pair").size() == 1);
    CHECK(h.records("fabric-pair")[0].fields["error"] == "node-0: no free port");
    h.receive("node-1", Json{{"type", "fabric-result"},
                             {"round", 1},
                             {"pair", 0},
                             {"error", "refused"},
                             {"outKbps", 0},
                             {"inKbps", 0},
                             {"latencyNs", 0}});
    CHECK(h.records("fabric-pair").size() == 1);
    CHECK(h.records("protocol-error").empty());
  }
}

TEST_CASE("without the fabric check a fabric report is a protocol error") {
  MachineHarness h;
  h.join_all();
  h.receive(
      "node-0",
      Json{{"type", "fabric-listening"}, {"round", 1}, {"pair", 0}, {"address", ""}, {"port", 1}});
  REQUIRE(h.records("protocol-error").size() == 1);
  CHECK(h.records("protocol-error")[0].fields["error"] ==
        "fabric-listening: type: no fabric check is running");
}

namespace {

// The test plan's nodes and spare-0 joined, past the first fabric check (every node at
// 9.4 Gbit/s) and started.
void start_past_fabric(MachineHarness& h) {
  h.join("spare-0");
  h.join_all();
  play(h, healthy);
  REQUIRE(h.sent("node-0", "start").size() == 1);
}

// A job with the fabric check before restarts, past its first check and start, then failed:
// every instance stopped, the backoff elapsed and the nodes' checks passed. Leaves the log
// cleared before the checks' answers.
void restart_to_checks(MachineHarness& h) {
  start_past_fabric(h);
  h.receive("node-1", exited(1, 0, 1, 0, true, "NCCL error"));
  h.receive("node-0", exited(0, 0, 0, SIGTERM, false, "", true));
  for (int i = 0; i < 3; ++i) h.stopped("node-" + std::to_string(i), i);
  h.clear();
  h.advance(10s);
  REQUIRE(h.sent("node-0", "run-checks").size() == 1);
  h.clear();
}

}  // namespace

TEST_CASE("with beforeRestarts the fabric check runs again once the nodes passed their checks") {
  pai::Plan plan = fabric_plan();
  plan.sanity_check.fabric.before_restarts = true;
  MachineHarness h(plan);
  restart_to_checks(h);
  for (int i = 0; i < 3; ++i) h.checks("node-" + std::to_string(i));
  // Not started yet: round 1 of a new check first.
  CHECK(h.sent("node-0", "start").empty());
  REQUIRE(h.records("fabric-round").size() == 1);
  play(h, healthy);
  CHECK(h.records("fabric-verdict").at(0).fields["healthy"] == true);
  CHECK(h.only("node-0", "start")["attempt"] == 1);
  CHECK(h.only("node-2", "start")["attempt"] == 1);
}

TEST_CASE("a node the check before a restart finds slow is replaced before the restart") {
  pai::Plan plan = fabric_plan();
  plan.sanity_check.fabric.before_restarts = true;
  MachineHarness h(plan);
  restart_to_checks(h);
  for (int i = 0; i < 3; ++i) h.checks("node-" + std::to_string(i));
  play(h, slow("node-2"));
  REQUIRE(h.records("node-excluded").size() == 1);
  CHECK(h.records("node-excluded")[0].fields["node"] == "node-2");
  CHECK(h.records("node-replaced").at(0).fields["spare"] == "spare-0");
  // The spare runs its own checks for the instance it took; then the job starts, without a
  // third fabric check.
  CHECK(h.sent("node-0", "start").empty());
  REQUIRE(h.sent("spare-0", "run-checks").size() == 1);
  h.checks("spare-0");
  CHECK(h.records("fabric-round").size() == 2);  // the restart's two rounds
  CHECK(h.only("spare-0", "start")["instance"] == 2);
  CHECK(h.only("node-0", "start")["attempt"] == 1);
}

namespace {

// The job started (start_past_fabric), then every rank of the test
// plan (ranks 0-4) inside all_reduce #10 for 61 s; the ranks of node-0 and node-1 have a
// stalled connection to each other: one link, either end may lose packets. The log is cleared
// after the start.
void hang_on_one_link(MachineHarness& h) {
  start_past_fabric(h);
  h.clear();
  const std::vector<std::pair<std::string, std::vector<int>>> nodes = {
      {"node-0", {0, 1}}, {"node-1", {2, 3}}, {"node-2", {4}}};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& [node, ranks] = nodes[i];
    pai::net::HeartbeatInstance entry{.instance = static_cast<int>(i), .idle_ms = 61000,
                                      .hang_interval = 1800, .step = 9, .ranks = {},
                                      .telemetry = {}};
    for (int r : ranks) {
      pai::net::RankTelemetry t{.rank = r, .step = 9, .window_us = 1000000, .comm_us = 1000000,
                                .entered = 10, .exited = 9, .open_ms = 61000, .op = 1,
                                .quiet_ms = 61000};
      if (node == "node-0") t.tcp_stalled_peers = {h.address_of("node-1")};
      if (node == "node-1") t.tcp_stalled_peers = {h.address_of("node-0")};
      entry.telemetry.push_back(t);
    }
    h.receive(node,
              pai::net::to_json(pai::net::NodeToCoordinator{pai::net::NodeHeartbeat{{entry}}}));
  }
  h.advance(1s);
}

}  // namespace

TEST_CASE("isolate: a hang on a link that names no node restarts the job to test the links") {
  pai::Plan plan = fabric_plan();
  plan.sanity_check.fabric.before_restarts = true;
  plan.fault_tolerance.diagnosis.action = pai::DiagnosisAction::Isolate;
  MachineHarness h(plan);
  hang_on_one_link(h);
  REQUIRE(h.records("diagnosis").size() == 1);
  CHECK(h.records("diagnosis")[0].fields["node"] == "");
  // Nobody is excluded yet: the job stops at once, not after its 30-minute hang interval.
  CHECK(h.records("node-excluded").empty());
  REQUIRE(h.records("diagnosis-restart").size() == 1);
  CHECK(h.records("diagnosis-restart")[0].fields["suspects"] ==
        Json::parse(R"(["node-0","node-1"])"));
  CHECK(h.records("diagnosis-restart")[0].line ==
        "restarting the job to test the links of node-0 and node-1: the fabric check before the "
        "restart excludes the node that loses packets");
  for (const char* node : {"node-0", "node-1", "node-2"}) {
    CHECK(h.only(node, "stop")["reason"] ==
          "worker-0: RankCommHang: all 5 ranks have been inside all_reduce #10 for at least 62 s; "
          "the connection node-0 - node-1 is stalled; either end may be at fault: retryable");
  }
  // The check finds node-1 bad and the spare takes its instance.
  for (int i = 0; i < 3; ++i) h.stopped("node-" + std::to_string(i), i);
  h.advance(10s);
  for (int i = 0; i < 3; ++i) h.checks("node-" + std::to_string(i));
  play(h, slow("node-1"));
  REQUIRE(h.records("node-excluded").size() == 1);
  CHECK(h.records("node-excluded")[0].fields["node"] == "node-1");
  CHECK(h.records("node-replaced").at(0).fields["spare"] == "spare-0");
}

TEST_CASE("isolate: without the check before restarts a hang that names no node waits") {
  pai::Plan plan = fabric_plan();
  plan.fault_tolerance.diagnosis.action = pai::DiagnosisAction::Isolate;
  MachineHarness h(plan);
  hang_on_one_link(h);
  REQUIRE(h.records("diagnosis").size() == 1);
  CHECK(h.records("diagnosis-restart").empty());
  CHECK(h.sent("node-0", "stop").empty());
}

TEST_CASE("without beforeRestarts a restart does not measure the fabric again") {
  MachineHarness h(fabric_plan());
  restart_to_checks(h);
  for (int i = 0; i < 3; ++i) h.checks("node-" + std::to_string(i));
  CHECK(h.records("fabric-round").empty());
  CHECK(h.only("node-0", "start")["attempt"] == 1);
}

}  // namespace fabric_check_test
