#include "launcher/coordinator/rendezvous.h"

#include <catch2/catch.hpp>

#include "libpai/placement.h"
#include "machine_harness.h"

namespace rendezvous_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;

namespace {

pai::Plan plan_without_spares() {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.spares.clear();
  return plan;
}

}  // namespace

TEST_CASE("progress names who is missing and why - rate limited - and once more when complete") {
  MachineHarness h;
  h.join("node-0");
  const auto first = h.records("progress");
  REQUIRE(first.size() == 1);
  CHECK(first[0].line == "1/3 joined; waiting for node-1: no connection; node-2: no connection");
  CHECK(h.only("node-0", "progress").at("text") == first[0].line);

  h.clear();
  h.join("node-1", failing_checks());
  CHECK(h.records("progress").empty());  // within the progress interval
  REQUIRE(h.machine.next_deadline().has_value());
  CHECK(*h.machine.next_deadline() == h.start + 1s);
  h.advance(1s);
  const auto second = h.records("progress");
  REQUIRE(second.size() == 1);
  CHECK(second[0].line ==
        "1/3 joined; waiting for node-1: failed check burn, re-running checks (attempt 2 of 3); "
        "node-2: no connection");
  CHECK(h.sent("node-0", "progress").size() == 1);
  CHECK(h.sent("node-1", "progress").size() == 1);

  h.clear();
  h.checks("node-1");
  h.join("node-2");
  const auto last = h.records("progress");
  REQUIRE(last.size() == 1);
  CHECK(last[0].line == "3/3 joined");
  CHECK(h.records("assignment").size() == 1);
}

TEST_CASE("a long list of missing nodes is cut after eight names") {
  MachineHarness h(pai::testing::make_test_plan(11, 1));
  h.join("node-0");
  CHECK(h.records("progress").at(0).line ==
        "1/12 joined; waiting for node-1: no connection; node-2: no connection; node-3: no "
        "connection; node-4: no connection; node-5: no connection; node-6: no connection; "
        "node-7: no connection; node-8: no connection; and 3 more");
}

TEST_CASE("a node failing a check is replaced by a ready spare - MASTER_ADDR moves with it") {
  MachineHarness h;
  h.join("spare-0");
  h.join("node-1");
  h.join("node-2");
  h.clear();
  h.join("node-0", failing_checks());

  const auto replaced = h.records("node-replaced");
  REQUIRE(replaced.size() == 1);
  CHECK(replaced[0].line == "node-0 replaced by spare spare-0 as worker-0: failed check burn");
  CHECK(h.only("node-0", "finish") ==
        Json{{"type", "finish"},
             {"exitCode", 0},
             {"reason", "replaced by spare spare-0: failed check burn"}});
  CHECK(h.closed("node-0"));
  CHECK(h.records("join").at(0).line ==
        "node-0 failed check burn: 12.1 TFLOPS below the floor of 100.5 (attempt 1 of 3)");

  // The spare holds instance 0; everyone's host list says so, and so does MASTER_ADDR.
  const Json assign = h.only("spare-0", "assign");
  CHECK(assign.at("instance") == 0);
  // Only what differs from the plan travels: instance 0's new host.
  CHECK(assign.at("hosts").size() == 1);
  CHECK(assign.at("hosts").at(0).at("instance") == 0);
  CHECK(assign.at("hosts").at(0).at("name") == "spare-0");
  CHECK(h.only("node-2", "assign").at("hosts") == assign.at("hosts"));
  CHECK(h.records("assignment").at(0).fields.at("master").at("address") == "10.0.1.1");
  pai::Plan placed = h.plan;
  pai::place(placed, assigned_hosts(h.plan, assign));
  CHECK(placed.master.host == "spare-0");
  CHECK(placed.master.address == "10.0.1.1");
  CHECK(h.only("spare-0", "start").at("instance") == 0);
}

TEST_CASE("a spare that joins later takes the instance of a node failing its checks") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1", failing_checks("nccl", "bus bandwidth 12.0 GB/s below 40"));
  h.join("node-2");
  CHECK(h.only("node-1", "run-checks") == Json{{"type", "run-checks"}, {"attempt", 2}});
  CHECK(h.records("assignment").empty());
  h.clear();
  h.join("spare-0");
  CHECK(h.records("node-replaced").at(0).fields.at("reason") == "failed check nccl");
  CHECK(h.only("node-1", "finish").at("reason") == "replaced by spare spare-0: failed check nccl");
  CHECK(h.only("spare-0", "assign").at("instance") == 1);
  CHECK(h.sent("spare-0", "standby").empty());
}

TEST_CASE(
    "a node failing its checks without a spare is asked again until maxAttempts - then the job "
    "fails") {
  MachineHarness h(plan_without_spares());
  h.join("node-0");
  h.join("node-2");
  h.join("node-1", failing_checks());
  CHECK(h.only("node-1", "run-checks").at("attempt") == 2);
  h.clear();
  h.checks("node-1", failing_checks());
  CHECK(h.only("node-1", "run-checks").at("attempt") == 3);
  CHECK(h.records("checks").at(0).line ==
        "node-1 failed check burn: 12.1 TFLOPS below the floor of 100.5 (attempt 2 of 3)");
  h.clear();
  h.checks("node-1", failing_checks());
  CHECK(h.sent("node-1", "run-checks").empty());
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->exit_code == 1);
  const std::string reason =
      "node node-1 failed check burn 3 times with no ready spare left: 12.1 TFLOPS below the "
      "floor of 100.5";
  CHECK(finish->reason == reason);
  for (const char* node : {"node-0", "node-1", "node-2"}) {
    CHECK(h.only(node, "finish") == Json{{"type", "finish"}, {"exitCode", 1}, {"reason", reason}});
  }
  CHECK(h.records("job-failed").at(0).line == "job failed: " + reason);
  CHECK(h.machine.finished());
}

TEST_CASE("a node that passes on a second attempt completes the rendezvous") {
  MachineHarness h(plan_without_spares());
  h.join("node-0");
  h.join("node-2");
  h.join("node-1", failing_checks());
  h.clear();
  h.checks("node-1");
  CHECK(h.only("node-1", "assign").at("instance") == 1);
  CHECK(h.only("node-1", "start").at("attempt") == 0);
}

TEST_CASE("an unrequested checks answer is a protocol error") {
  MachineHarness h;
  h.join("node-0");
  h.clear();
  h.checks("node-0");
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "checks: checks: no check run was requested");
  CHECK(h.closed("node-0"));
}

TEST_CASE("the rendezvous times out naming the missing nodes and why") {
  MachineHarness h(plan_without_spares());
  h.join("node-0");
  h.join("node-1", failing_checks());
  h.clear();
  REQUIRE(h.machine.next_deadline().has_value());
  h.advance(5min - 1ms);
  CHECK_FALSE(h.finish().has_value());
  h.advance(1ms);
  const auto finish = h.finish();
  REQUIRE(finish.has_value());
  CHECK(finish->exit_code == 1);
  CHECK(finish->reason ==
        "rendezvous timed out after 300s: 1/3 joined; missing node-1: failed check burn, "
        "re-running checks (attempt 2 of 3), node-2: no connection");
  CHECK(h.only("node-0", "finish").at("exitCode") == 1);
  // The machine with no launcher at the end; node-1's still was (a late one of node-2's hears
  // how the job ended from the ended coordinator).
  CHECK(finish->absent == std::vector<std::string>{"node-2"});
}

TEST_CASE("at the timeout a ready spare fills the place of a node that never came") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1");
  h.join("spare-0");
  CHECK(h.records("assignment").empty());
  h.clear();
  h.advance(5min);
  CHECK(h.records("node-replaced").at(0).line ==
        "node-2 replaced by spare spare-0 as ps-0: no connection at the rendezvous timeout");
  CHECK(h.only("spare-0", "assign").at("instance") == 2);
  CHECK(h.only("spare-0", "start").at("instance") == 2);
  CHECK_FALSE(h.finish().has_value());

  // The replaced node may still come: it is a spare now.
  h.clear();
  h.join("node-2");
  CHECK(h.only("node-2", "standby") == Json{{"type", "standby"}});
}

TEST_CASE("a node that disconnects during the rendezvous is waited for again") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1");
  h.disconnect("node-1");
  h.clear();
  h.advance(1s);
  CHECK(h.records("progress").at(0).line ==
        "1/3 joined; waiting for node-1: no connection; node-2: no connection");
  h.join("node-1");
  h.join("node-2");
  CHECK(h.sent("node-1", "assign").size() == 1);
}

TEST_CASE("a node lost after the rendezvous counted it ready keeps it from completing") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1");  // instances 0 and 1 are counted ready
  h.disconnect("node-0");
  h.join("node-2");
  CHECK(h.records("assignment").empty());
  CHECK(h.sent("node-2", "assign").empty());
  h.join("node-0");
  CHECK(h.records("assignment").size() == 1);
  CHECK(h.sent("node-0", "assign").size() == 1);
}

TEST_CASE("a progress record names 64 waiting nodes and counts the rest") {
  MachineHarness h(pai::testing::make_test_plan(99, 1));
  h.join("node-0");
  const auto progress = h.records("progress");
  REQUIRE(progress.size() == 1);
  CHECK(progress[0].fields.at("ready") == 1);
  CHECK(progress[0].fields.at("total") == 100);
  REQUIRE(progress[0].fields.at("waiting").size() == 64);
  CHECK(progress[0].fields.at("waiting")[63].at("node") == "node-64");
  CHECK(progress[0].fields.at("waitingMore") == 35);
}

TEST_CASE("the fabric lint names a node whose fact differs from the majority's") {
  MachineHarness h;
  h.join("node-0");
  h.join("node-1", passing_checks("535.104.05"));
  h.join("node-2");
  const auto lint = h.records("fabric-lint");
  REQUIRE(lint.size() == 1);
  CHECK(lint[0].line ==
        "warning: fabric lint: node-1 gpu.driver is 535.104.05, the other nodes' 550.54.15");
  CHECK(lint[0].fields.at("outliers") == Json::array({{{"node", "node-1"},
                                                       {"key", "gpu.driver"},
                                                       {"value", "535.104.05"},
                                                       {"majority", "550.54.15"}}}));
  CHECK(lint[0].fields.at("excluded") == Json::array());
  CHECK(h.sent("node-1", "assign").size() == 1);  // warn: it stays in the job
}

TEST_CASE("with lint exclude the node the majority contradicts is replaced by a spare") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.sanity_check.lint = pai::LintAction::Exclude;
  MachineHarness h(plan);
  h.join("spare-0");
  h.join("node-0");
  h.join("node-1", passing_checks("535.104.05"));
  h.join("node-2");
  const auto lint = h.records("fabric-lint");
  REQUIRE(lint.size() == 1);
  CHECK(lint[0].fields.at("excluded") == Json::array({"node-1"}));
  REQUIRE(h.records("node-excluded").size() == 1);
  CHECK(h.records("node-excluded")[0].line ==
        "node-1 excluded: fabric lint: gpu.driver is 535.104.05, the other nodes' 550.54.15");
  CHECK(h.records("node-replaced").size() == 1);
}

TEST_CASE("two nodes that disagree are named without blame") {
  pai::Plan plan = pai::testing::make_test_plan(1, 2);
  MachineHarness h(plan);
  h.join("node-0");
  h.join("node-1", passing_checks("535.104.05"));
  const auto lint = h.records("fabric-lint");
  REQUIRE(lint.size() == 1);
  CHECK(lint[0].line ==
        "warning: fabric lint: gpu.driver differs across nodes: 535.104.05 on node-1; "
        "550.54.15 on node-0");
  CHECK(lint[0].fields.at("outliers") == Json::array());
}

TEST_CASE("a spare failing its checks is released") {
  MachineHarness h;
  h.join("spare-0", failing_checks("disk", "/runs: 1 GiB free"));
  CHECK(h.only("spare-0", "finish") ==
        Json{{"type", "finish"},
             {"exitCode", 0},
             {"reason", "spare spare-0 is not used: failed check disk"}});
  CHECK(h.closed("spare-0"));
}

}  // namespace rendezvous_test
