#include "launcher/coordinator/log_subscriptions.h"

#include <catch2/catch.hpp>

#include "machine_harness.h"

namespace log_subscriptions_test {

using namespace pai::launcher::coordinator;
using namespace pai::launcher::coordinator::testing;
using pai::net::base64_encode;

namespace {

Json log_line(int rank, int instance, const std::string& text) {
  return Json{
      {"type", "log"}, {"rank", rank}, {"instance", instance}, {"data", base64_encode(text)}};
}

const Json kLogEnd{{"type", "log-end"}};

}  // namespace

TEST_CASE("logs without follow relay every node's tail and end with done and unsubscribe") {
  MachineHarness h;
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin, Json{{"type", "logs"}, {"rank", -1}, {"follow", false}, {"tail", 4096}});
  for (const char* node : {"node-0", "node-1", "node-2"}) {
    CHECK(h.only(node, "subscribe-logs") ==
          Json{{"type", "subscribe-logs"}, {"rank", -1}, {"tail", 4096}});
  }
  CHECK(h.sent("spare-0", "subscribe-logs").empty());

  h.receive("node-1", log_line(2, 1, "step 10 loss 2.1\n"));
  CHECK(h.only("admin-host", "log") == log_line(2, 1, "step 10 loss 2.1\n"));
  h.receive("node-0", kLogEnd);
  h.receive("node-1", kLogEnd);
  CHECK(h.sent("admin-host", "done").empty());
  CHECK(h.only("node-0", "unsubscribe-logs") == Json{{"type", "unsubscribe-logs"}});
  h.receive("node-2", kLogEnd);
  CHECK(h.sent("admin-host", "done").size() == 1);
  CHECK(h.sent("node-2", "unsubscribe-logs").size() == 1);
  // Output after the end goes to nobody.
  h.clear();
  h.receive("node-1", log_line(2, 1, "late\n"));
  CHECK(h.sent("admin-host", "log").empty());
}

TEST_CASE("logs of one rank subscribe only its node and filter other ranks") {
  MachineHarness h;
  h.join_all();
  const int admin = h.control();
  h.clear();
  h.receive(admin,
            Json{{"type", "logs"}, {"rank", 3}, {"follow", true}, {"tail", 0}, {"lines", 7}});
  CHECK(h.only("node-1", "subscribe-logs") ==
        Json{{"type", "subscribe-logs"}, {"rank", 3}, {"tail", 0}, {"lines", 7}});
  CHECK(h.sent("node-0", "subscribe-logs").empty());
  h.receive("node-1", kLogEnd);
  h.receive("node-1", log_line(2, 1, "rank two\n"));
  h.receive("node-1", log_line(3, 1, "rank three\n"));
  const auto logs = h.sent("admin-host", "log");
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].at("rank") == 3);
  CHECK(h.sent("admin-host", "done").empty());  // follow goes on

  h.clear();
  h.disconnect("admin-host", "closed");
  CHECK(h.only("node-1", "unsubscribe-logs") == Json{{"type", "unsubscribe-logs"}});
}

TEST_CASE("a second client's tail goes to it alone - the follower sees live output only") {
  MachineHarness h;
  h.join_all();
  const int follower = h.control("follower");
  h.receive(follower, Json{{"type", "logs"}, {"rank", 0}, {"follow", true}, {"tail", 0}});
  h.receive("node-0", kLogEnd);
  const int reader = h.control("reader");
  h.clear();
  h.receive(reader, Json{{"type", "logs"}, {"rank", 0}, {"follow", false}, {"tail", 100}});
  h.receive("node-0", log_line(0, 0, "old tail\n"));
  CHECK(h.sent("follower", "log").empty());
  CHECK(h.sent("reader", "log").size() == 1);
  h.receive("node-0", kLogEnd);
  CHECK(h.sent("reader", "done").size() == 1);
  CHECK(h.sent("node-0", "unsubscribe-logs").empty());  // the follower still needs it
  h.receive("node-0", log_line(0, 0, "live\n"));
  CHECK(h.sent("follower", "log").size() == 1);
  CHECK(h.sent("reader", "log").size() == 1);
}

TEST_CASE("a node lost while sending its tail ends that part of the request") {
  MachineHarness h;
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "logs"}, {"rank", -1}, {"follow", false}, {"tail", 10}});
  h.receive("node-0", kLogEnd);
  h.receive("node-2", kLogEnd);
  h.clear();
  h.disconnect("node-1");
  CHECK(h.sent("admin-host", "done").size() == 1);
}

TEST_CASE("followers follow a spare that takes an instance") {
  pai::Plan plan = pai::testing::make_test_plan();
  plan.fault_tolerance.mode = pai::FaultToleranceMode::Async;
  plan.sanity_check.enabled = false;
  MachineHarness h(plan);
  h.join("spare-0");
  h.join_all();
  const int admin = h.control();
  h.receive(admin, Json{{"type", "logs"}, {"rank", -1}, {"follow", true}, {"tail", 0}});
  for (const char* node : {"node-0", "node-1", "node-2"}) h.receive(node, kLogEnd);
  h.disconnect("node-1");
  h.clear();
  h.advance(10s);
  CHECK(h.only("spare-0", "subscribe-logs") ==
        Json{{"type", "subscribe-logs"}, {"rank", -1}, {"tail", 0}});
  h.receive("spare-0", log_line(2, 1, "restarted\n"));
  CHECK(h.sent("admin-host", "log").size() == 1);
}

TEST_CASE("logs before the job runs or of a rank outside the job are error replies") {
  MachineHarness h;
  const int admin = h.control();
  h.receive(admin, Json{{"type", "logs"}, {"rank", -1}, {"follow", false}, {"tail", 0}});
  CHECK(h.only("admin-host", "error").at("text") == "no instance is running yet (rendezvous)");
  h.join_all();
  h.clear();
  h.receive(admin, Json{{"type", "logs"}, {"rank", 5}, {"follow", false}, {"tail", 0}});
  CHECK(h.only("admin-host", "error").at("text") == "rank 5 is not in the job (5 processes)");
  h.clear();
  h.receive(admin, Json{{"type", "logs"}, {"rank", 0}, {"follow", false}, {"tail", -1}});
  CHECK(h.records("protocol-error").at(0).fields.at("error") ==
        "logs: tail: expected a non-negative integer");
}

}  // namespace log_subscriptions_test
