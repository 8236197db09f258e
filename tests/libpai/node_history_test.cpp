#include "libpai/node_history.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "support/temp_dir.h"

namespace node_history_test {

using namespace pai;
using pai::testing::slurp;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

HistoryRecord run(const std::string& time, bool passed, const std::string& node = "gpu-001") {
  HistoryRecord r;
  r.time = time;
  r.node = node;
  r.passed = passed;
  if (!passed) {
    r.failed = {"burn"};
    r.summary = "burn: GPU 2: slow";
  }
  return r;
}

std::vector<HistoryRecord> runs(const std::string& outcomes) {
  std::vector<HistoryRecord> records;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    records.push_back(run("t" + std::to_string(i), outcomes[i] == 'P'));
  return records;
}

}  // namespace

TEST_CASE("a record is one JSON line - and reads back") {
  HistoryRecord r = run("2024-05-01T10:00:00Z", false);
  std::string line = history_line(r);
  CHECK(line ==
        "{\"failed\":[\"burn\"],\"node\":\"gpu-001\",\"passed\":false,\"summary\":\"burn: GPU 2: "
        "slow\",\"time\":\"2024-05-01T10:00:00Z\"}\n");
  HistoryRead read = parse_history(line + line, "gpu-001", "h");
  CHECK(read.warnings.empty());
  CHECK(read.records == std::vector<HistoryRecord>{r, r});
}

TEST_CASE("a long summary is cut so a record stays one small write") {
  HistoryRecord r = run("t", false);
  r.summary = std::string(2000, 'x');
  HistoryRead read = parse_history(history_line(r), "gpu-001", "h");
  REQUIRE(read.records.size() == 1);
  CHECK(read.records[0].summary.size() == kMaxHistorySummary);
}

TEST_CASE("2 failures in the last 5 checks quarantine a node") {
  Quarantine q = decide_quarantine(runs("PPFPF"));
  CHECK(q.quarantined);
  CHECK(q.failed == 2);
  CHECK(q.considered == 5);
  CHECK(q.reason == "failed 2 of its last 5 checks (burn at t2, burn at t4)");
}

TEST_CASE("1 failure in 5 - or failures older than the last 5 - do not") {
  CHECK_FALSE(decide_quarantine(runs("PPPPF")).quarantined);
  Quarantine old = decide_quarantine(runs("FFPPPPP"));
  CHECK_FALSE(old.quarantined);
  CHECK(old.failed == 0);
  CHECK(old.reason.empty());
  CHECK_FALSE(decide_quarantine({}).quarantined);
  CHECK(decide_quarantine(runs("FF")).quarantined);  // a short history counts what it has
}

TEST_CASE("the policy's window and count apply") {
  QuarantinePolicy strict{3, 1};
  CHECK(decide_quarantine(runs("FPPP"), strict).quarantined == false);
  CHECK(decide_quarantine(runs("PPFP"), strict).quarantined);
}

TEST_CASE("a torn last line is ignored with a warning - the records before it count") {
  std::string text = history_line(run("t0", false)) + history_line(run("t1", false)) +
                     history_line(run("t2", false)).substr(0, 20);
  HistoryRead read = parse_history(text, "gpu-001", "h/gpu-001.jsonl");
  CHECK(read.records.size() == 2);
  CHECK(read.warnings ==
        std::vector<std::string>{
            "h/gpu-001.jsonl:3: ignored: a torn last line (an interrupted write)"});
}

TEST_CASE("a garbage line or another node's record is ignored with a warning") {
  std::string text = history_line(run("t0", false)) + "}{ not json\n" + "{\"a\":1}\n" +
                     history_line(run("t1", false, "gpu-002")) + "\n" +
                     history_line(run("t2", false));
  HistoryRead read = parse_history(text, "gpu-001", "h");
  CHECK(read.records.size() == 2);
  CHECK(read.warnings == std::vector<std::string>{"h:2: ignored: not JSON",
                                                  "h:3: ignored: not a history record",
                                                  "h:4: ignored: a record of node \"gpu-002\""});
  CHECK(decide_quarantine(read.records).quarantined);
}

TEST_CASE("appending creates the folder and the file, one line per run") {
  TempDir dir;
  std::string history = dir / "history";
  append_history(history, run("t0", true));
  append_history(history, run("t1", false));
  CHECK(slurp(history_path(history, "gpu-001")) ==
        history_line(run("t0", true)) + history_line(run("t1", false)));
  CHECK_FALSE(is_quarantined(history, "gpu-001").quarantined);
  append_history(history, run("t2", false));
  Quarantine q = is_quarantined(history, "gpu-001");
  CHECK(q.quarantined);
  CHECK(q.considered == 3);
}

TEST_CASE("an append after a torn line starts a new line - the torn one stays apart") {
  TempDir dir;
  std::string path = history_path(dir.path(), "gpu-001");
  spit(path, history_line(run("t0", false)) + "{\"time\":\"t1\",\"no");
  append_history(dir.path(), run("t2", false));
  std::vector<std::string> warnings;
  Quarantine q = is_quarantined(dir.path(), "gpu-001", {}, &warnings);
  CHECK(q.quarantined);
  CHECK(q.failed == 2);
  CHECK(warnings == std::vector<std::string>{path + ":2: ignored: not JSON"});
}

TEST_CASE("no history is no quarantine") {
  TempDir dir;
  std::vector<std::string> warnings{"stale"};
  Quarantine q = is_quarantined(dir / "none", "gpu-001", {}, &warnings);
  CHECK_FALSE(q.quarantined);
  CHECK(q.considered == 0);
  CHECK(warnings.empty());
}

TEST_CASE("a full disk is a clear error - and leaves nothing half written") {
  TempDir dir;
  std::filesystem::create_symlink("/dev/full", history_path(dir.path(), "gpu-001"));
  try {
    append_history(dir.path(), run("t0", false));
    FAIL("append_history did not throw");
  } catch (const HistoryError& e) {
    CHECK(std::string(e.what()) ==
          "cannot append to " + history_path(dir.path(), "gpu-001") + ": No space left on device");
  }
}

TEST_CASE("a history over its bound is rewritten with its last records") {
  TempDir dir;
  std::string path = history_path(dir.path(), "gpu-001");
  std::string text;
  for (int i = 0; text.size() <= kMaxHistoryBytes; ++i)
    text += history_line(run("p" + std::to_string(i), true));
  spit(path, "garbage\n" + text);
  append_history(dir.path(), run("last", false));
  HistoryRead read = read_history(dir.path(), "gpu-001");
  CHECK(read.warnings.empty());
  REQUIRE(read.records.size() == kHistoryKeptRecords + 1);
  CHECK(read.records.back().time == "last");
  CHECK(std::filesystem::file_size(path) < kMaxHistoryBytes);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp." + std::to_string(getpid())));
}

TEST_CASE("a FIFO in a history's place is no history - the reader never waits for a writer") {
  TempDir dir;
  REQUIRE(::mkfifo((dir / "node-1.jsonl").c_str(), 0600) == 0);
  const auto read = read_history(dir.path(), "node-1");  // blocked forever before
  CHECK(read.records.empty());
  CHECK_FALSE(is_quarantined(dir.path(), "node-1").quarantined);
}

TEST_CASE("a reader looks at the last bytes only - a record cut at the front is skipped") {
  TempDir dir;
  std::string path = history_path(dir.path(), "gpu-001");
  std::string text;
  while (text.size() <= 2 * kMaxHistoryBytes) text += history_line(run("p", true));
  text += history_line(run("f1", false)) + history_line(run("f2", false));
  spit(path, text);
  HistoryRead read = read_history(dir.path(), "gpu-001");
  CHECK(read.warnings.empty());
  CHECK(read.records.size() < text.size() / history_line(run("p", true)).size());
  CHECK(decide_quarantine(read.records).quarantined);
}

}  // namespace node_history_test
