#include "launcher/report/journal_reader.h"

#include <catch2/catch.hpp>
#include <system_error>
#include <vector>

#include "launcher/report/journal_fixture.h"

namespace journal_reader_test {

using namespace pai::launcher::report;
using namespace pai::testing;

namespace {

std::vector<JournalRecord> read_all(const std::string& path, JournalStats* stats = nullptr) {
  std::vector<JournalRecord> out;
  const JournalStats st = read_journal(path, [&](const JournalRecord& r) { out.push_back(r); });
  if (stats) *stats = st;
  return out;
}

}  // namespace

TEST_CASE("journal times are read as the journal writes them") {
  CHECK(parse_journal_time("2026-01-02T03:04:05.678Z") == kT0 + 678);
  CHECK(parse_journal_time("1970-01-01T00:00:00.000Z") == 0);
  CHECK_FALSE(parse_journal_time("2026-01-02 03:04:05.678Z"));
  CHECK_FALSE(parse_journal_time("2026-13-02T03:04:05.678Z"));
  CHECK_FALSE(parse_journal_time("2026-01-02T03:04:05Z"));
  CHECK_FALSE(parse_journal_time(""));
}

TEST_CASE("a record's fields keep their types and nested objects come as their JSON text") {
  JournalRecord r;
  REQUIRE(parse_journal_line(
      "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"exited\",\"instance\":\"worker-1\","
      "\"localRank\":0,\"status\":{\"code\":1,\"signal\":0},\"retryable\":true,\"seconds\":1.5,"
      "\"none\":null}",
      r));
  CHECK(r.unix_ms == kT0);
  CHECK(r.event == "exited");
  REQUIRE(r.fields.size() == 6);  // in the order the journal wrote them
  CHECK(r.fields[0].first == "instance");
  CHECK(r.fields[5].first == "none");
  CHECK(r.text("instance") == "worker-1");
  CHECK(r.integer("localRank") == 0);
  CHECK(r.text("status") == "{\"code\":1,\"signal\":0}");
  CHECK(r.flag("retryable") == true);
  CHECK(r.text("seconds") == "1.5");
  CHECK(r.text("none") == "");
  CHECK_FALSE(r.integer("instance"));
  CHECK(r.object("status").integer("signal") == 0);
  CHECK(r.object("instance").fields.empty());
  CHECK_FALSE(r.text("missing"));
}

TEST_CASE("an array field reads as its strings, other members left out") {
  JournalRecord r;
  REQUIRE(parse_journal_line(
      "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"diagnosis-restart\","
      "\"suspects\":[\"node-0\",7,\"node-1\",{\"a\":1}],\"class\":\"RankCommHang\"}",
      r));
  CHECK(r.strings("suspects") == std::vector<std::string>{"node-0", "node-1"});
  CHECK(r.strings("class").empty());
  CHECK(r.strings("missing").empty());
}

TEST_CASE("lines that are no record are counted, not thrown on") {
  JournalRecord r;
  CHECK_FALSE(parse_journal_line("", r));
  CHECK_FALSE(parse_journal_line("not json", r));
  CHECK_FALSE(parse_journal_line("[1,2]", r));
  CHECK_FALSE(parse_journal_line("{\"event\":\"start\"}", r));  // no time
  CHECK_FALSE(parse_journal_line("{\"time\":\"yesterday\",\"event\":\"start\"}", r));
  CHECK_FALSE(parse_journal_line("{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":7}", r));
}

TEST_CASE("a truncated last line (a job killed mid-write) is left out and said") {
  TempDir dir;
  const std::string whole = line(0, "start", {{"instance", s("worker-0")}, {"attempt", i(0)}});
  const std::string next = line(5, "exit", {{"instance", s("worker-0")}});
  spit(dir / "events.jsonl", whole + "garbage\n" + next.substr(0, next.size() / 2));
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 1);
  CHECK(records[0].event == "start");
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
  CHECK(records[0].text("message") == "a\xEF\xBF\xBD\xEF\xBF\xBD b\xEF\xBF\xBD");
  CHECK_FALSE(stats.partial_last_line);
}

TEST_CASE("a line over the limit is skipped whole, and the reader goes on") {
  TempDir dir;
  const std::string huge = line(1, "notify", {{"message", s(std::string(kMaxRecordBytes, 'x'))}});
  spit(dir / "events.jsonl", line(0, "start") + huge + line(2, "stop"));
  JournalStats stats;
  const auto records = read_all(dir / "events.jsonl", &stats);
  REQUIRE(records.size() == 2);
  CHECK(records[1].event == "stop");
  CHECK(stats.oversized == 1);
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
