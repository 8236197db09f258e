#include "launcher/policy/hang_watch.h"

#include <catch2/catch.hpp>

using pai::launcher::HangWatch;
using std::chrono::seconds;

namespace {
const HangWatch::Clock::time_point t0{};
}

TEST_CASE("silence past the interval is a hang - activity resets it") {
  HangWatch watch(true, 10, 5);
  CHECK_FALSE(watch.deadline());
  watch.start(t0);
  CHECK(*watch.deadline() == t0 + seconds(10));
  CHECK(watch.check(t0 + seconds(9)) == HangWatch::Verdict::Alive);
  watch.activity(t0 + seconds(9));
  CHECK(watch.check(t0 + seconds(18)) == HangWatch::Verdict::Alive);
  CHECK(watch.check(t0 + seconds(19)) == HangWatch::Verdict::Silent);
  watch.stop();
  CHECK(watch.check(t0 + seconds(100)) == HangWatch::Verdict::Alive);
  CHECK_FALSE(watch.deadline());
}

TEST_CASE("ranks still running exitInterval after one exited are stuck") {
  HangWatch watch(true, 100, 5);
  watch.start(t0);
  watch.rank_succeeded(t0 + seconds(1));
  watch.rank_succeeded(t0 + seconds(3));
  CHECK(*watch.deadline() == t0 + seconds(6));
  watch.activity(t0 + seconds(5));
  CHECK(watch.check(t0 + seconds(6)) == HangWatch::Verdict::StuckExiting);
  watch.start(t0 + seconds(10));
  CHECK(watch.check(t0 + seconds(20)) == HangWatch::Verdict::Alive);
}

TEST_CASE("a stage interval overrides the plan - also when the plan disabled detection") {
  HangWatch watch(false, 1800, 600);
  watch.start(t0);
  CHECK(watch.interval() == 0);
  CHECK_FALSE(watch.deadline());
  watch.set_interval(2);
  CHECK(watch.interval() == 2);
  CHECK(watch.check(t0 + seconds(2)) == HangWatch::Verdict::Silent);
  watch.set_interval(0);
  CHECK(watch.interval() == 0);
  CHECK(watch.check(t0 + seconds(2)) == HangWatch::Verdict::Alive);
}

TEST_CASE("a stage can turn detection off - and a new attempt starts with the plan's settings") {
  HangWatch watch(true, 10, 5);
  watch.start(t0);
  watch.set_interval(-1);
  CHECK(watch.interval() == 0);
  CHECK_FALSE(watch.deadline());
  CHECK(watch.check(t0 + seconds(1000)) == HangWatch::Verdict::Alive);
  watch.set_exit_interval(60);
  CHECK(watch.exit_interval() == 60);
  watch.start(t0 + seconds(1000));
  CHECK(watch.interval() == 10);
  CHECK(watch.exit_interval() == 5);
}

TEST_CASE("a stage exit interval replaces the plan's until set back to default") {
  HangWatch watch(true, 100, 5);
  watch.start(t0);
  watch.set_exit_interval(30);
  watch.rank_succeeded(t0 + seconds(1));
  CHECK(*watch.deadline() == t0 + seconds(31));
  CHECK(watch.check(t0 + seconds(30)) == HangWatch::Verdict::Alive);
  CHECK(watch.check(t0 + seconds(31)) == HangWatch::Verdict::StuckExiting);
  watch.set_exit_interval(0);
  CHECK(watch.check(t0 + seconds(6)) == HangWatch::Verdict::StuckExiting);
}
