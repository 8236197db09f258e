#include "launcher/report/journal_reader.h"

#include <catch2/catch.hpp>
#include <system_error>
#include <variant>
#include <vector>

#include "launcher/report/journal_fixture.h"

namespace journal_reader_test {

using namespace pai::launcher::report;
using namespace pai::testing;
namespace journal = pai::launcher::journal;

namespace {

std::vector<journal::Entry> read_all(const std::string& path, JournalStats* stats = nullptr) {
  std::vector<journal::Entry> out;
  const JournalStats st = read_journal(path, [&](const journal::Entry& r) { out.push_back(r); });
  if (stats) *stats = st;
  return out;
}

}  // namespace

TEST_CASE("a truncated last line (a job killed mid-write) is left out and said") {
  TempDir dir;
  const std::string whole = line(0, "start", {{"instance", s("worker-0")}, {"attempt", i(0)}});
  const std::string next = line(5, "exit", {{"instance", s("worker-0")}});
  spit(dir / "events.jsonl", whole + "garbage\n" + next.substr(0, next.size() / 2));
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 1);
  CHECK(records[0].event == journal::Event{journal::Start{.instance = "worker-0"}});
  CHECK(stats.records == 1);
  CHECK(stats.malformed == 1);
  CHECK(stats.partial_last_line);
  CHECK(stats.bytes == static_cast<std::int64_t>(whole.size() + 8 + next.size() / 2));
}

TEST_CASE("bytes that are not UTF-8 become U+FFFD and the record is kept") {
  TempDir dir;
  spit(dir / "events.jsonl",
       "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"notify\",\"message\":\"a\xff\xfe "
       "b\xc3\"}\n");
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 1);
  CHECK(std::get<journal::Notify>(records[0].event).message ==
        "a\xEF\xBF\xBD\xEF\xBF\xBD b\xEF\xBF\xBD");
  CHECK_FALSE(stats.partial_last_line);
}

TEST_CASE("a line over the limit is skipped whole, and the reader goes on") {
  TempDir dir;
  const std::string huge = line(1, "notify", {{"message", s(std::string(kMaxRecordBytes, 'x'))}});
  spit(dir / "events.jsonl", line(0, "start") + huge + line(2, "stop"));
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 2);
  CHECK(std::holds_alternative<journal::Stop>(records[1].event));
  CHECK(stats.oversized == 1);
  CHECK(stats.malformed == 0);
}

TEST_CASE("the header record says the format and is no record of the job") {
  TempDir dir;
  spit(dir / "events.jsonl",
       line(0, journal::current_header()) + line(1, journal::Joined{.coordinator = "c:1"}));
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 1);
  CHECK(records[0].event == journal::Event{journal::Joined{.coordinator = "c:1"}});
  CHECK(stats.records == 1);
  CHECK(stats.format == 2);

  spit(dir / "old.jsonl", line(1, "joined", {{"coordinator", s("c:1")}}));
  CHECK(read_all(dir / "old.jsonl", &stats) == records);
  CHECK(stats.format == 1);
}

TEST_CASE("events of a newer launcher and fields of the wrong type are counted") {
  TempDir dir;
  spit(dir / "events.jsonl",
       line(0, "launched-rocket", {{"instance", s("worker-0")}}) +
           line(1, "start", {{"instance", s("worker-0")}, {"attempt", s("one")}}) +
           line(2, "notify", {{"instance", i(7)}, {"message", s("m")}}));
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 2);
  CHECK(records[0].event == journal::Event{journal::Start{.instance = "worker-0"}});
  CHECK(records[1].event == journal::Event{journal::Notify{.message = "m"}});
  CHECK(stats.records == 2);
  CHECK(stats.unknown == 1);
  CHECK(stats.mistyped == 2);
  CHECK(stats.malformed == 0);
}

TEST_CASE("a journal that cannot be opened is an error naming it") {
  TempDir dir;
  const std::string path = dir / "nope/events.jsonl";
  try {
    read_all(path);
    FAIL("no error");
  } catch (const std::system_error& e) {
    CHECK(std::string(e.what()) == "cannot read " + path + ": No such file or directory");
  }
}

}  // namespace journal_reader_test
