// Adaptive wake-up coalescing for the coordinator's event loop, as a NIC moderates its
// interrupts. Thousands of launchers heartbeat once a second each, so at 8,192 nodes a message
// arrives every 0.12 ms and the loop would sleep and wake for almost every one of them. When
// the loop handles many messages a second and finds few at each wake, it pauses a few
// milliseconds before its next poll, so one wake serves the tens of messages that arrived
// meanwhile. A loop with a backlog (large batches) or a small job (few messages) never pauses:
// the pause costs a busy loop throughput and a quiet one latency. The rate is of handlers,
// not of wakes: the pauses bring the wakes down, and a rule on wakes switched itself off
// every other second.
#pragma once

#include <chrono>
#include <cstddef>

namespace pai::launcher::coordinator {

class LoopPacer {
 public:
  using Clock = std::chrono::steady_clock;

  /// Handlers a second above which the loop counts as busy.
  static constexpr std::size_t kBusyHandlers = 2000;
  /// Handlers a wake may run and still count as little work.
  static constexpr std::size_t kSmallBatch = 32;
  /// The pause before the next poll; the most any message waits for it.
  static constexpr std::chrono::milliseconds kPause{5};

  /// One wake of the loop that ran `handlers` handlers, ending at `now`: how long to pause
  /// before polling again (zero: poll at once).
  Clock::duration after_wake(std::size_t handlers, Clock::time_point now);

 private:
  Clock::time_point window_start_{};
  std::size_t handlers_in_window_ = 0;
  std::size_t handlers_last_window_ = 0;
};

}  // namespace pai::launcher::coordinator
