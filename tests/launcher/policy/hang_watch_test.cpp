#include "launcher/policy/hang_watch.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

namespace hang_watch_test {

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

TEST_CASE("the adaptive interval follows the p99 step time after warm-up") {
  HangWatch watch(true, 1800, 600);
  watch.set_adaptive(10, 30, 20);
  watch.start(t0);
  // Rank 0 ends 19 steps of 2 s: not warmed up yet, the plan's interval holds.
  for (int i = 1; i <= 19; ++i) watch.steps_ended(t0 + seconds(2 * i), 0, 1, 2.0);
  CHECK(watch.interval() == 1800);
  // The 20th step warms it up: max(30, 10 x 2 s) = 30 s, the floor.
  watch.steps_ended(t0 + seconds(40), 0, 1, 2.0);
  CHECK(watch.interval() == 30);
  CHECK(watch.check(t0 + seconds(69)) == HangWatch::Verdict::Alive);
  CHECK(watch.check(t0 + seconds(70)) == HangWatch::Verdict::Silent);
  // Slower steps lift it above the floor: 100 samples of 5 s -> 50 s.
  for (int i = 0; i < 100; ++i) watch.steps_ended(t0 + seconds(41), 1, 1, 5.0);
  CHECK(watch.interval() == 50);
  CHECK(*watch.deadline() == t0 + seconds(41 + 50));
}

TEST_CASE("the adaptive interval uses the p99 - not the slowest step - and never exceeds the plan's") {
  HangWatch watch(true, 600, 600);
  watch.set_adaptive(10, 1, 1);
  watch.start(t0);
  // 199 steps of 1 s and one of 500 s (a checkpoint): the p99 of 200 is the 198th: 1 s.
  for (int i = 0; i < 199; ++i) watch.steps_ended(t0, 0, 1, 1.0);
  watch.steps_ended(t0, 0, 1, 500.0);
  CHECK(watch.interval() == 10);
  // Three of them among 200: the p99 is 500 s, 10 x 500 s is above the plan's 600 s.
  watch.steps_ended(t0, 0, 1, 500.0);
  watch.steps_ended(t0, 0, 1, 500.0);
  CHECK(watch.interval() == 600);
}

TEST_CASE("a stage's interval wins over the adaptive one - and a new attempt warms up again") {
  HangWatch watch(true, 1800, 600);
  watch.set_adaptive(5, 60, 3);
  watch.start(t0);
  watch.steps_ended(t0 + seconds(1), 0, 3, 1.0);
  CHECK(watch.interval() == 60);
  watch.set_interval(900);  // `ctl hang-interval 15m`, e.g. around a long evaluation
  CHECK(watch.interval() == 900);
  watch.set_interval(0);
  CHECK(watch.interval() == 60);
  watch.start(t0 + seconds(100));
  CHECK(watch.interval() == 1800);
}

TEST_CASE("adaptive off - steps are still progress - nonsense step times are ignored") {
  HangWatch watch(true, 10, 5);
  watch.start(t0);
  watch.steps_ended(t0 + seconds(8), 0, 1, 0.5);
  CHECK(watch.check(t0 + seconds(17)) == HangWatch::Verdict::Alive);
  CHECK(watch.interval() == 10);
  watch.steps_ended(t0 + seconds(9), 0, 0, 0.5);  // no step ended: no progress
  CHECK(watch.check(t0 + seconds(18)) == HangWatch::Verdict::Silent);

  HangWatch adaptive(true, 1800, 600);
  adaptive.set_adaptive(10, 1, 1);
  adaptive.start(t0);
  adaptive.steps_ended(t0, 0, 1, std::numeric_limits<double>::quiet_NaN());
  adaptive.steps_ended(t0, 0, 1, -4.0);
  CHECK(adaptive.interval() == 1800);
  adaptive.steps_ended(t0, 0, INT64_MAX, 2.0);  // a huge count saturates
  adaptive.steps_ended(t0, 0, INT64_MAX, 2.0);
  CHECK(adaptive.interval() == 20);
}

}  // namespace hang_watch_test
