#include "launcher/coordinator/loop_pacer.h"

namespace pai::launcher::coordinator {

namespace {
constexpr std::chrono::seconds kWindow{1};
}  // namespace

LoopPacer::Clock::duration LoopPacer::after_wake(std::size_t handlers, Clock::time_point now) {
  if (now - window_start_ >= kWindow) {
    // A window with no wakes in between leaves nothing to go by.
    handlers_last_window_ = now - window_start_ < 2 * kWindow ? handlers_in_window_ : 0;
    handlers_in_window_ = 0;
    window_start_ = now;
  }
  handlers_in_window_ += handlers;
  // The rate of the last whole window, or of this one once it is already over the mark.
  const bool busy =
      handlers_last_window_ > kBusyHandlers || handlers_in_window_ > kBusyHandlers;
  if (!busy || handlers >= kSmallBatch) return Clock::duration::zero();
  return kPause;
}

}  // namespace pai::launcher::coordinator
