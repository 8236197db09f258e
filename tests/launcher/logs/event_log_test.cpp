#include "launcher/logs/event_log.h"

#include <catch2/catch.hpp>
#include <system_error>

#include "launcher/launcher_harness.h"

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

TEST_CASE("an event is one JSON line with time and name first") {
  CHECK(format_event(1'700'000'000'123, "exit",
                     {{"rank", std::int64_t{3}},
                      {"status", std::string("exit code 1")},
                      {"retryable", false},
                      {"seconds", 1.5}}) ==
        "{\"time\":\"2023-11-14T22:13:20.123Z\",\"event\":\"exit\",\"rank\":3,"
        "\"status\":\"exit code 1\",\"retryable\":false,\"seconds\":1.5}\n");
}

TEST_CASE("invalid UTF-8 and newlines in fields cannot break the line") {
  const std::string line = format_event(0, "notify", {{"message", std::string("a\nb\xff")}});
  CHECK(line ==
        "{\"time\":\"1970-01-01T00:00:00.000Z\",\"event\":\"notify\",\"message\":"
        "\"a\\nb\xef\xbf\xbd\"}\n");
}

TEST_CASE("records are appended to the journal file at once") {
  TempDir dir;
  EventLog log(dir / "events.jsonl");
  log.record("start", {{"instance", std::string("worker-0")}});
  CHECK(slurp(dir / "events.jsonl").find("\"event\":\"start\",\"instance\":\"worker-0\"}\n") !=
        std::string::npos);
  log.record("stop", {});
  CHECK(pai::testing::count_lines_with(slurp(dir / "events.jsonl"), "\"event\"") == 2);
}

TEST_CASE("an unwritable journal is an exception naming the path") {
  try {
    EventLog log("/nonexistent-dir/events.jsonl");
    FAIL("no exception");
  } catch (const std::system_error& e) {
    CHECK(std::string(e.what()) ==
          "cannot write /nonexistent-dir/events.jsonl: No such file or directory");
  }
}
