#include "compiler/plan/history_mtbf.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "libpai/duration.h"
#include "support/temp_dir.h"

namespace history_mtbf_test {

using pai::HistoryRecord;
using pai::MtbfHistory;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

constexpr std::int64_t kDay = 86400;

HistoryRecord run(const std::string& node, const std::string& time, bool passed) {
  HistoryRecord r;
  r.node = node;
  r.time = time;
  r.passed = passed;
  if (!passed) r.failed = {"burn"};
  return r;
}

}  // namespace

TEST_CASE("a history time is read exactly as the launcher writes it - anything else is not") {
  CHECK(pai::parse_history_time("1970-01-01T00:00:00Z") == 0);
  CHECK(pai::parse_history_time("2024-05-01T10:00:00Z") == 1714557600);
  CHECK(pai::parse_history_time("2024-02-29T00:00:00Z") == 1709164800);
  CHECK(pai::parse_history_time("9999-12-31T23:59:59Z") == 253402300799);
  for (const char* bad : {"", "2024-05-01T10:00:00", "2024-05-01 10:00:00Z", "2024-5-01T10:00:00Z",
                          "2024-05-01T10:00:00+01", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
                          "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T10:60:00Z",
                          "2024-00-01T00:00:00Z", "2024-05-00T00:00:00Z", "-024-05-01T10:00:00Z",
                          "2024-05-01T10:00:00Zjunk"}) {
    INFO(bad);
    CHECK_FALSE(pai::parse_history_time(bad));
  }
}

TEST_CASE("the histories count the failures after each node's first run over the time covered") {
  std::vector<std::string> warnings;
  const MtbfHistory counts = pai::count_histories(
      {
          // 10 days, failed twice after its first run (which failed too: it starts the count).
          {run("a", "2024-05-01T00:00:00Z", false), run("a", "2024-05-04T00:00:00Z", false),
           run("a", "2024-05-06T00:00:00Z", true), run("a", "2024-05-11T00:00:00Z", false)},
          // One run: no time covered, nothing counted.
          {run("b", "2024-05-01T00:00:00Z", false)},
          // The clock went back: the latest time ends the span; a time that does not read is
          // skipped and said.
          {run("c", "2024-05-01T00:00:00Z", true), run("c", "2024-05-06T00:00:00Z", false),
           run("c", "2024-05-03T00:00:00Z", true), run("c", "yesterday", false)},
      },
      &warnings);
  CHECK(counts.nodes == 2);
  CHECK(counts.failures == 3);
  CHECK(counts.node_seconds == 15 * kDay);
  CHECK_FALSE(counts.used);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "node c: a history record's time 'yesterday' is not a UTC time: record skipped");
}

TEST_CASE("a history of thousands of years covers at most the longest duration") {
  std::vector<std::string> warnings;
  const MtbfHistory counts = pai::count_histories(
      {{run("a", "0001-01-01T00:00:00Z", true), run("a", "9999-12-31T23:59:59Z", false)}},
      &warnings);
  CHECK(counts.node_seconds == pai::kMaxDurationSeconds);
  CHECK(counts.failures == 1);
  CHECK(warnings.empty());
}

TEST_CASE("the node MTBF is believed from 3 failures and 7 node-days - at most 365 days") {
  MtbfHistory counts;
  counts.nodes = 4;
  counts.failures = 3;
  counts.node_seconds = 30 * kDay;
  CHECK(pai::history_node_mtbf(counts) == 10 * kDay);
  counts.failures = 2;
  CHECK_FALSE(pai::history_node_mtbf(counts));
  counts.failures = 3;
  counts.node_seconds = 7 * kDay - 1;
  CHECK_FALSE(pai::history_node_mtbf(counts));
  counts.node_seconds = std::int64_t{4000} * 365 * kDay;
  CHECK(pai::history_node_mtbf(counts) == pai::kMaxDurationSeconds);
}

TEST_CASE("the histories of the job's hosts are read from the folder - each host once") {
  TempDir dir;
  spit(dir / "node-1.jsonl", pai::history_line(run("node-1", "2024-05-01T00:00:00Z", true)) +
                                 pai::history_line(run("node-1", "2024-05-21T00:00:00Z", false)) +
                                 "garbage\n" +
                                 pai::history_line(run("node-1", "2024-05-31T00:00:00Z", false)));
  spit(dir / "node-2.jsonl", pai::history_line(run("node-2", "2024-05-01T00:00:00Z", true)) +
                                 pai::history_line(run("node-2", "2024-05-11T00:00:00Z", false)));
  std::vector<std::string> warnings;
  const auto counts =
      pai::read_histories(dir.path(), {"node-1", "node-2", "node-1", "node-3"}, &warnings);
  REQUIRE(counts);
  CHECK(counts->nodes == 2);
  CHECK(counts->failures == 3);
  CHECK(counts->node_seconds == 40 * kDay);
  REQUIRE(warnings.size() == 1);  // node-1's garbage line, once
  CHECK(warnings[0].find("node-1.jsonl:3: ignored") != std::string::npos);
  // No history of any of them here: nothing to say.
  CHECK_FALSE(pai::read_histories(dir.path(), {"node-3"}, &warnings));
  CHECK_FALSE(pai::read_histories(dir / "missing", {"node-1"}, &warnings));
}

}  // namespace history_mtbf_test
