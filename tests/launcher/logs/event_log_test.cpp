#include "launcher/logs/event_log.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <system_error>

#include "launcher/launcher_harness.h"

namespace event_log_test {

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

namespace {

// What the journal says on its warning descriptor: a file in `dir`.
struct Warnings {
  explicit Warnings(const TempDir& dir)
      : path(dir / "warnings"), fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)) {}
  ~Warnings() { ::close(fd); }
  std::string text() const { return slurp(path); }
  std::string path;
  int fd;
};

}  // namespace

TEST_CASE("a full disk drops records, says so once and never throws") {
  TempDir dir;
  Warnings warnings(dir);
  EventLog log("/dev/full", warnings.fd);  // every write fails with ENOSPC
  CHECK_FALSE(log.incomplete());
  CHECK_FALSE(log.record("start", {{"instance", std::string("worker-0")}}));
  CHECK_FALSE(log.record("stop", {}));
  CHECK(log.lost() == 2);
  CHECK(log.incomplete());
  CHECK(warnings.text() ==
        "pai-launch: warning: cannot write the journal /dev/full: No space left on device; the "
        "job goes on, the journal is incomplete from here\n");
}

TEST_CASE("a record cut short by the disk is removed: no torn last line") {
  TempDir dir;
  Warnings warnings(dir);
  const std::string path = dir / "events.jsonl";
  EventLog log(path, warnings.fd);
  REQUIRE(log.record("first", {}));
  const std::size_t whole = slurp(path).size();
  // A file size limit a few bytes past the first record: the next write is partial (EFBIG
  // after it, with SIGXFSZ ignored as the launcher does).
  rlimit saved{};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = whole + 20;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  const bool second = log.record("second", {{"padding", std::string(100, 'x')}});
  const bool third = log.record("third", {{"padding", std::string(100, 'y')}});
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, SIG_DFL);
  CHECK_FALSE(second);
  CHECK_FALSE(third);
  const std::string text = slurp(path);
  CHECK(text.size() == whole);
  CHECK(text.back() == '\n');
  CHECK(log.lost() == 2);
  // Once there is room again, records are whole again.
  CHECK(log.record("fourth", {}));
  CHECK(pai::testing::count_lines_with(slurp(path), "\"event\"") == 2);
  CHECK(pai::testing::count_lines_with(warnings.text(), "warning") == 1);
}

}  // namespace event_log_test
