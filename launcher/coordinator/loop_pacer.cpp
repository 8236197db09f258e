#include "launcher/coordinator/loop_pacer.h"

namespace pai::launcher::coordinator {

namespace {
constexpr std::chrono::seconds kWindow{1};
}  // namespace

LoopPacer::Clock::duration LoopPacer::after_wake(std::size_t handlers, Clock::time_point now) {
  if (now - window_start_ >= kWindow) {
    // A window with no wakes in between leaves nothing to go by.
    wakes_last_window_ = now - window_start_ < 2 * kWindow ? wakes_in_window_ : 0;
    wakes_in_window_ = 0;
    window_start_ = now;
  }
  ++wakes_in_window_;
  // The rate of the last whole window, or of this one once it is already over the mark.
  const bool busy = wakes_last_window_ > kBusyWakes || wakes_in_window_ > kBusyWakes;
  if (!busy || handlers >= kSmallBatch) return Clock::duration::zero();
  return kPause;
}

}  // namespace pai::launcher::coordinator
