#include "launcher/logs/event_log.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <system_error>

#include "launcher/launcher_harness.h"
#include "launcher/logs/output_writers.h"

namespace event_log_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

TEST_CASE("records are appended to the journal file at once, after its header") {
  TempDir dir;
  EventLog log(dir / "events.jsonl");
  log.flush();
  CHECK(slurp(dir / "events.jsonl").find("\"event\":\"journal\",\"format\":2,") !=
        std::string::npos);
  log.record(journal::Start{.instance = "worker-0"});
  log.flush();
  CHECK(slurp(dir / "events.jsonl").find("\"event\":\"start\",\"instance\":\"worker-0\",") !=
        std::string::npos);
  log.record(journal::Stop{});
  log.flush();
  CHECK(pai::testing::count_lines_with(slurp(dir / "events.jsonl"), "\"event\"") == 3);
}

TEST_CASE("a new journal is not readable by other users") {
  TempDir dir;
  const mode_t old = ::umask(0);
  { EventLog log(dir / "events.jsonl"); }
  ::umask(old);
  struct stat st {};
  REQUIRE(::stat((dir / "events.jsonl").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
}

TEST_CASE("a journal appended to keeps its first record: no second header") {
  TempDir dir;
  const std::string path = dir / "events.jsonl";
  EventLog(path).record(journal::Joined{.coordinator = "a:1"});
  EventLog(path).record(journal::Joined{.coordinator = "b:2"});
  const std::string text = slurp(path);
  CHECK(pai::testing::count_lines_with(text, "\"event\":\"journal\"") == 1);
  CHECK(text.find("\"event\":\"journal\"") == text.find("\"event\""));
  CHECK(pai::testing::count_lines_with(text, "\"event\":\"joined\"") == 2);
  // One of an earlier launcher (format 1, no header) gets none either.
  const std::string old = dir / "old.jsonl";
  pai::testing::spit(old, "{\"time\":\"2026-01-02T03:04:05.000Z\",\"event\":\"joined\"}\n");
  EventLog(old).record(journal::Joined{.coordinator = "c:3"});
  CHECK(pai::testing::count_lines_with(slurp(old), "\"event\":\"journal\"") == 0);
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
  log.record(journal::Start{.instance = "worker-0"});
  log.record(journal::Stop{});
  log.flush();
  flush_output();  // the warning
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
  REQUIRE(log.record(journal::Joined{.coordinator = "first"}));
  log.flush();
  const std::size_t whole = slurp(path).size();
  // A file size limit a few bytes past the first record: the next write is partial (EFBIG
  // after it, with SIGXFSZ ignored as the launcher does).
  rlimit saved{};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = whole + 20;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  log.record(journal::Joined{.coordinator = std::string(100, 'x')});
  log.record(journal::Joined{.coordinator = std::string(100, 'y')});
  log.flush();
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::signal(SIGXFSZ, SIG_DFL);
  const std::string text = slurp(path);
  CHECK(text.size() == whole);
  CHECK(text.back() == '\n');
  CHECK(log.lost() == 2);
  // Once there is room again, records are whole again.
  CHECK(log.record(journal::Joined{.coordinator = "fourth"}));
  log.flush();
  flush_output();                                                        // the warning
  CHECK(pai::testing::count_lines_with(slurp(path), "\"event\"") == 3);  // with the header
  CHECK(pai::testing::count_lines_with(warnings.text(), "warning") == 1);
}

}  // namespace event_log_test
