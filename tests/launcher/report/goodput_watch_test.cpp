#include "launcher/report/goodput_watch.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launcher/report/journal_fixture.h"

namespace goodput_watch_test {

using namespace pai::launcher::report;
using namespace pai::testing;
using namespace std::chrono_literals;
using pai::launcher::goodput::Cause;

namespace {

// What a watch delivered and warned of, for the test's thread to wait on.
struct Seen {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<LiveAccount> accounts;
  std::vector<std::string> warnings;

  GoodputWatch::Deliver deliver() {
    return [this](const LiveAccount& a) {
      std::lock_guard lock(mutex);
      accounts.push_back(a);
      changed.notify_all();
    };
  }
  GoodputWatch::Warn warn() {
    return [this](const std::string& w) {
      std::lock_guard lock(mutex);
      warnings.push_back(w);
      changed.notify_all();
    };
  }
  template <typename Pred>
  bool wait_for(Pred pred) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 20s, [&] { return pred(); });
  }
};

}  // namespace

TEST_CASE("a running job's goodput is read again and again, its ranks in their causes to now") {
  TempDir dir;
  put_journal(dir, "coordinator", line(0, "coordinator-started", {{"job", s("train")}}));
  put_journal(dir, "worker-0", restarted_job_journal());
  Seen seen;
  {
    GoodputWatch watch(dir.path(), 10ms, seen.deliver(), seen.warn());
    REQUIRE(seen.wait_for([&] { return seen.accounts.size() >= 3; }));
  }
  std::lock_guard lock(seen.mutex);
  CHECK(seen.warnings.empty());
  const LiveAccount& a = seen.accounts.back();
  CHECK(a.journals == 1);  // the coordinator's journal is read, not counted
  CHECK(a.account.rank_slots == 1);
  // The fixture's job ended in 2026-01: now is later, and the account runs to it.
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  CHECK(a.account.last_ms >= now_ms - 60'000);
  CHECK(a.account.causes.total() == Approx(a.account.wall_seconds()).epsilon(0.01));
  CHECK(a.account.causes[Cause::Unknown] == 0);
}

TEST_CASE("a read that takes long spaces the next by twenty times its duration") {
  TempDir dir;
  put_journal(dir, "worker-0", restarted_job_journal());
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::chrono::steady_clock::time_point> reads;
  {
    // Each read takes at least 50 ms (the delivery is inside it): the next comes a second or
    // more after, not the interval's 1 ms.
    GoodputWatch watch(
        dir.path(), 1ms,
        [&](const LiveAccount&) {
          std::this_thread::sleep_for(50ms);
          std::lock_guard lock(mutex);
          reads.push_back(std::chrono::steady_clock::now());
          changed.notify_all();
        },
        [](const std::string&) {});
    std::unique_lock lock(mutex);
    REQUIRE(changed.wait_for(lock, 20s, [&] { return reads.size() >= 3; }));
  }
  for (std::size_t i = 1; i < reads.size(); ++i) CHECK(reads[i] - reads[i - 1] >= 1000ms);
}

TEST_CASE("a log folder that cannot be read is warned of once, and nothing is delivered") {
  TempDir dir;
  Seen seen;
  {
    GoodputWatch watch(dir / "missing", 5ms, seen.deliver(), seen.warn());
    REQUIRE(seen.wait_for([&] { return !seen.warnings.empty(); }));
    std::this_thread::sleep_for(100ms);  // some twenty reads more
  }
  std::lock_guard lock(seen.mutex);
  CHECK(seen.accounts.empty());
  REQUIRE(seen.warnings.size() == 1);
  CHECK(seen.warnings[0] ==
        "cannot read the log folder " + dir / "missing" + ": no such directory");
}

TEST_CASE("a folder holding only the coordinator's journal delivers nothing until a launcher's") {
  TempDir dir;
  put_journal(dir, "coordinator", line(0, "coordinator-started", {{"job", s("train")}}));
  Seen seen;
  GoodputWatch watch(dir.path(), 5ms, seen.deliver(), seen.warn());
  std::this_thread::sleep_for(100ms);
  {
    std::lock_guard lock(seen.mutex);
    CHECK(seen.accounts.empty());
    CHECK(seen.warnings.empty());
  }
  put_journal(dir, "worker-0", restarted_job_journal());
  REQUIRE(seen.wait_for([&] { return !seen.accounts.empty(); }));
}

TEST_CASE("a watch with a long interval stops at once") {
  TempDir dir;
  put_journal(dir, "worker-0", restarted_job_journal());
  Seen seen;
  const auto began = std::chrono::steady_clock::now();
  {
    GoodputWatch watch(dir.path(), std::chrono::hours(1), seen.deliver(), seen.warn());
    REQUIRE(seen.wait_for([&] { return !seen.accounts.empty(); }));
  }
  CHECK(std::chrono::steady_clock::now() - began < 10s);
  std::lock_guard lock(seen.mutex);
  CHECK(seen.accounts.size() == 1);
}

}  // namespace goodput_watch_test
