#include "launcher/supervisor/bounded_log.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <string>

#include "launcher/launcher_harness.h"

namespace bounded_log_test {

using pai::launcher::BoundedLog;
using pai::testing::slurp;
using pai::testing::TempDir;

namespace {

std::string chunk(char c, std::size_t n) { return std::string(n - 1, c) + "\n"; }

}  // namespace

TEST_CASE("a log without a bound keeps everything") {
  TempDir dir;
  BoundedLog log(dir / "rank.log", 0);
  log.open();
  REQUIRE(log.is_open());
  for (int i = 0; i < 100; ++i) CHECK(log.write(chunk('a', 1000)));
  log.close();
  CHECK(slurp(dir / "rank.log").size() == 100'000);
  CHECK_FALSE(std::filesystem::exists(dir / "rank.log.1"));
  CHECK(log.dropped() == 0);
}

TEST_CASE(
    "past half its bound a log moves to .1 and starts again with a marker - the newest kept") {
  TempDir dir;
  BoundedLog log(dir / "rank.log", 2000);
  log.open();
  for (char c = 'a'; c <= 'j'; ++c) REQUIRE(log.write(chunk(c, 200)));
  log.close();
  const std::string current = slurp(dir / "rank.log");
  const std::string older = slurp(dir / "rank.log.1");
  // a..j, 200 bytes each: every part holds at most half the bound (markers included): a..e
  // were dropped at the second rotation, f..i are in .1, j in the log.
  CHECK(current.size() <= 1000);
  CHECK(older.size() <= 1000);
  CHECK(current.ends_with(chunk('j', 200)));
  CHECK(
      current.starts_with("pai-launch: this log reached half of logs.maxBytes (2000 bytes): "
                          "the part before is in rank.log.1; "));
  CHECK(older.find(chunk('h', 200)) != std::string::npos);
  CHECK(older.find(chunk('a', 200)) == std::string::npos);  // dropped, counted
  CHECK(log.dropped() == 1000);
  CHECK(current.find(std::to_string(log.dropped()) + " earlier bytes were dropped\n") !=
        std::string::npos);
  // Every byte of output is on disk or counted as dropped (the markers are not output).
  const auto marker_bytes = [](const std::string& part) {
    return part.starts_with("pai-launch:") ? part.find('\n') + 1 : 0;
  };
  CHECK(current.size() - marker_bytes(current) + older.size() - marker_bytes(older) +
            log.dropped() ==
        2000);
}

TEST_CASE("a write longer than half the bound is kept whole, after a rotation") {
  TempDir dir;
  BoundedLog log(dir / "rank.log", 1000);
  log.open();
  REQUIRE(log.write("first\n"));
  REQUIRE(log.write(chunk('x', 4000)));
  log.close();
  CHECK(slurp(dir / "rank.log.1") == "first\n");
  CHECK(slurp(dir / "rank.log").ends_with(chunk('x', 4000)));
}

TEST_CASE("a log that cannot be created says why - writes go nowhere") {
  TempDir dir;
  BoundedLog log(dir / "gone/rank.log", 1000);
  log.open();
  CHECK_FALSE(log.is_open());
  CHECK(log.open_error() ==
        "cannot write " + (dir / "gone/rank.log") + ": No such file or directory");
  CHECK_FALSE(log.write("x\n"));
}

TEST_CASE("a rotation that cannot rename fails the write - no crash, nothing lost before") {
  TempDir dir;
  std::filesystem::create_directory(dir / "logs");
  BoundedLog log(dir / "logs/rank.log", 100);
  log.open();
  REQUIRE(log.write(chunk('a', 40)));
  std::filesystem::rename(dir / "logs", dir / "moved");  // the folder went away
  CHECK_FALSE(log.write(chunk('b', 40)));                // rotation: rename fails
  CHECK(errno == ENOENT);
  log.close();
  CHECK(slurp(dir / "moved/rank.log") == chunk('a', 40));
}

}  // namespace bounded_log_test
