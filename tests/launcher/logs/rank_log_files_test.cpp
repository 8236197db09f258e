#include "launcher/logs/rank_log_files.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "launcher/launcher_harness.h"

namespace rank_log_files_test {

using pai::launcher::latest_rank_logs;
using pai::launcher::rank_log_name;
using pai::launcher::RankLogFilesError;
using pai::testing::spit;
using pai::testing::TempDir;

TEST_CASE("a rank log's name is the one the supervisor writes") {
  CHECK(rank_log_name(3, 1) == "rank-3.attempt-1.log");
  CHECK(rank_log_name(0, 12, ".error.json") == "rank-0.attempt-12.error.json");
}

TEST_CASE("the newest attempt of every rank is found, in rank order, whatever else is there") {
  TempDir dir;
  std::filesystem::create_directories(dir / "worker-0");
  std::filesystem::create_directories(dir / "worker-1");
  std::filesystem::create_directories(dir / "forensics/attempt-1");
  spit(dir / "worker-0/rank-0.attempt-0.log", "a\n");
  spit(dir / "worker-0/rank-0.attempt-2.log", "c\n");
  spit(dir / "worker-0/rank-0.attempt-10.log", "k\n");  // 10 > 2: numbers, not text
  spit(dir / "worker-0/rank-0.attempt-10.log.1", "rotated\n");
  spit(dir / "worker-0/rank-0.attempt-3.error.json", "{}");
  spit(dir / "worker-0/events.jsonl", "");
  spit(dir / "worker-1/rank-2.attempt-1.log", "x\n");
  spit(dir / "worker-1/rank-1.attempt-1.log", "y\n");
  spit(dir / "worker-1/rank-x.attempt-1.log", "not a rank\n");
  spit(dir / "worker-1/rank-4.attempt-.log", "no attempt\n");
  spit(dir / "forensics/attempt-1/rank-0.txt", "stacks\n");
  spit(dir / "report.html", "<html>");
  const auto logs = latest_rank_logs(dir.path());
  REQUIRE(logs.size() == 3);
  CHECK(logs[0].rank == 0);
  CHECK(logs[0].attempt == 10);
  CHECK(logs[0].instance == "worker-0");
  CHECK(logs[0].path == dir / "worker-0/rank-0.attempt-10.log");
  CHECK(logs[1].rank == 1);
  CHECK(logs[1].instance == "worker-1");
  CHECK(logs[2].rank == 2);
}

TEST_CASE("a log folder that cannot be read is an error naming it") {
  TempDir dir;
  const std::string missing = dir / "gone";
  try {
    latest_rank_logs(missing);
    FAIL("no error");
  } catch (const RankLogFilesError& e) {
    CHECK(std::string(e.what()).find("cannot read the log folder " + missing) == 0);
  }
  CHECK(latest_rank_logs(dir.path()).empty());  // an empty folder: no logs, no error
}

}  // namespace rank_log_files_test
