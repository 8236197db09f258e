#include "launcher/coordinator/node_reports.h"

#include <catch2/catch.hpp>
#include <csignal>

#include "launcher/net/frame.h"

using namespace pai::launcher::coordinator;

namespace {

Json exit_message() {
  return Json{{"type", "exited"},
              {"instance", 1},
              {"localRank", 3},
              {"status", {{"code", 0}, {"signal", SIGKILL}}},
              {"classification",
               {{"retryable", true},
                {"reason", "signal 9 (SIGKILL): retryable"},
                {"matchedLine", ""},
                {"signature", "signal:9"}}},
              {"stopping", false}};
}

template <class F>
std::string error_of(const Json& message, F read) {
  try {
    const pai::net::MessageReader reader(message);
    read(reader);
  } catch (const pai::net::ProtocolError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("an exit report becomes the policy's event") {
  const Json message = exit_message();
  const ExitReport r = read_exited(pai::net::MessageReader(message), 3);
  CHECK(r.event.instance == 1);
  CHECK(r.event.local_rank == 3);
  CHECK(r.event.status.signal == SIGKILL);
  CHECK(r.event.classification.retryable);
  CHECK(r.event.classification.signature == "signal:9");
  CHECK_FALSE(r.stopping);
}

TEST_CASE("bad exit reports name the field") {
  auto read = [](const pai::net::MessageReader& m) { read_exited(m, 3); };
  Json m = exit_message();
  m["instance"] = 3;
  CHECK(error_of(m, read) == "exited: instance: expected an integer in [0, 2], got 3");
  m = exit_message();
  m["classification"].erase("signature");
  CHECK(error_of(m, read) == "exited.classification: signature: missing");
  m = exit_message();
  m["status"] = 9;
  CHECK(error_of(m, read) == "exited: status: expected an object");
}

TEST_CASE("heartbeat entries are read with their time of arrival") {
  const Json message{
      {"type", "heartbeat"},
      {"instances",
       Json::array(
           {Json{{"instance", 0}, {"idleMs", 1500}, {"hangInterval", 1800}, {"step", 12}}})}};
  const Clock::time_point now = Clock::time_point{} + std::chrono::hours(2);
  const auto entries = read_heartbeat(pai::net::MessageReader(message), 3, now);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].heartbeat.idle_ms == 1500);
  CHECK(entries[0].heartbeat.hang_interval_s == 1800);
  CHECK(entries[0].heartbeat.received == now);

  Json bad = message;
  bad["instances"][0].erase("step");
  CHECK(error_of(bad, [&](const pai::net::MessageReader& m) { read_heartbeat(m, 3, now); }) ==
        "heartbeat.instances[0]: step: missing");
  bad = message;
  bad["instances"][0]["idleMs"] = -1;
  CHECK(error_of(bad, [&](const pai::net::MessageReader& m) { read_heartbeat(m, 3, now); }) ==
        "heartbeat.instances[0]: idleMs: expected a non-negative integer");
}

TEST_CASE("hang and failure reports are read strictly") {
  const Json hang{{"type", "hang"}, {"instance", 2}, {"exiting", true}, {"seconds", 600}};
  const HangReport h = read_hang(pai::net::MessageReader(hang), 3);
  CHECK(h.instance == 2);
  CHECK(h.exiting);
  CHECK(h.seconds == 600);
  const Json failure{{"type", "failure"}, {"instance", 0}, {"rank", 1}, {"summary", 7}};
  CHECK(error_of(failure, [](const pai::net::MessageReader& m) { read_failure(m, 3); }) ==
        "failure: summary: expected a string");
}
