#include "launcher/coordinator/loop_pacer.h"

#include <catch2/catch.hpp>
#include <chrono>

namespace loop_pacer_test {

using pai::launcher::coordinator::LoopPacer;
using namespace std::chrono_literals;
using Clock = LoopPacer::Clock;

// `wakes` wakes of `handlers` handlers each, spread evenly over one second from `start`;
// returns the pause the last one got.
Clock::duration wake_for_a_second(LoopPacer& pacer, Clock::time_point start, std::size_t wakes,
                                  std::size_t handlers) {
  Clock::duration pause{};
  for (std::size_t i = 0; i < wakes; ++i) {
    pause = pacer.after_wake(handlers, start + i * (1s / static_cast<long>(wakes)));
  }
  return pause;
}

TEST_CASE("a quiet loop never pauses") {
  LoopPacer pacer;
  const auto start = Clock::time_point{} + 100s;
  // A 64-node job: about a hundred wakes a second, one message each.
  for (int second = 0; second < 5; ++second) {
    CHECK(wake_for_a_second(pacer, start + second * 1s, 100, 1) == Clock::duration::zero());
  }
}

TEST_CASE("a loop that wakes often for little pauses before its next poll") {
  LoopPacer pacer;
  const auto start = Clock::time_point{} + 100s;
  // The first second's handlers are counted as they come: past the mark, small batches pause.
  CHECK(wake_for_a_second(pacer, start, LoopPacer::kBusyHandlers, 1) == Clock::duration::zero());
  CHECK(pacer.after_wake(1, start + 999ms) == LoopPacer::kPause);
  // The next second goes by the last one's rate from its first wake.
  CHECK(pacer.after_wake(1, start + 1s) == LoopPacer::kPause);
  CHECK(pacer.after_wake(LoopPacer::kSmallBatch - 1, start + 1001ms) == LoopPacer::kPause);
}

TEST_CASE("the pauses go on while they keep the wakes few") {
  LoopPacer pacer;
  const auto start = Clock::time_point{} + 100s;
  wake_for_a_second(pacer, start, 2 * LoopPacer::kBusyHandlers, 1);
  // 8,192 heartbeats a second served by 200 paused wakes of 41 each, each followed by a wake
  // that found one more: the messages keep their rate, so the next second pauses too.
  for (int wake = 0; wake < 200; ++wake) {
    const auto at = start + 1s + wake * 5ms;
    CHECK(pacer.after_wake(41, at) == Clock::duration::zero());
    CHECK(pacer.after_wake(1, at + 1ms) == LoopPacer::kPause);
  }
  CHECK(pacer.after_wake(1, start + 2s) == LoopPacer::kPause);
}

TEST_CASE("a busy loop with a backlog never pauses") {
  LoopPacer pacer;
  const auto start = Clock::time_point{} + 100s;
  wake_for_a_second(pacer, start, 2 * LoopPacer::kBusyHandlers, 1);
  CHECK(pacer.after_wake(LoopPacer::kSmallBatch, start + 1s) == Clock::duration::zero());
  CHECK(pacer.after_wake(1000, start + 1001ms) == Clock::duration::zero());
}

TEST_CASE("the pauses end once the loop is quiet again") {
  LoopPacer pacer;
  const auto start = Clock::time_point{} + 100s;
  wake_for_a_second(pacer, start, 2 * LoopPacer::kBusyHandlers, 1);
  CHECK(pacer.after_wake(1, start + 1s) == LoopPacer::kPause);
  // A quiet second after the busy one...
  wake_for_a_second(pacer, start + 1s + 1ms, 10, 1);
  // ...and the next second's wakes are not paused.
  CHECK(pacer.after_wake(1, start + 2s + 1ms) == Clock::duration::zero());
  // Nor after a silence of several seconds following a busy one.
  wake_for_a_second(pacer, start + 10s, 2 * LoopPacer::kBusyHandlers, 1);
  CHECK(pacer.after_wake(1, start + 15s) == Clock::duration::zero());
}

}  // namespace loop_pacer_test
