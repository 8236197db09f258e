#include "launcher/policy/hang_watch.h"

#include <algorithm>

namespace pai::launcher {

HangWatch::HangWatch(bool enabled, std::int64_t interval_seconds,
                     std::int64_t exit_interval_seconds)
    : plan_enabled_(enabled),
      plan_interval_(interval_seconds),
      exit_interval_(exit_interval_seconds) {}

void HangWatch::start(Clock::time_point now) {
  running_ = true;
  last_activity_ = now;
  first_exit_.reset();
  override_ = 0;
  exit_override_ = 0;
}

void HangWatch::stop() { running_ = false; }

void HangWatch::activity(Clock::time_point now) { last_activity_ = std::max(last_activity_, now); }

void HangWatch::rank_succeeded(Clock::time_point now) {
  if (!first_exit_) first_exit_ = now;
}

void HangWatch::set_interval(std::int64_t seconds) { override_ = seconds; }

void HangWatch::set_exit_interval(std::int64_t seconds) {
  exit_override_ = std::max<std::int64_t>(seconds, 0);
}

std::int64_t HangWatch::interval() const {
  if (override_ > 0) return override_;
  if (override_ < 0) return 0;
  return plan_enabled_ ? plan_interval_ : 0;
}

std::optional<HangWatch::Clock::time_point> HangWatch::deadline() const {
  if (!running_) return std::nullopt;
  std::optional<Clock::time_point> earliest;
  if (interval() > 0 && silence_verdicts_) {
    earliest = last_activity_ + std::chrono::seconds(interval());
  }
  // Exiting ranks are watched whenever hang detection is on.
  if (first_exit_ && interval() > 0 && exit_interval() > 0) {
    auto exit_deadline = *first_exit_ + std::chrono::seconds(exit_interval());
    earliest = earliest ? std::min(*earliest, exit_deadline) : exit_deadline;
  }
  return earliest;
}

HangWatch::Verdict HangWatch::check(Clock::time_point now) const {
  if (!running_ || interval() == 0) return Verdict::Alive;
  if (first_exit_ && exit_interval() > 0 &&
      now >= *first_exit_ + std::chrono::seconds(exit_interval())) {
    return Verdict::StuckExiting;
  }
  if (silence_verdicts_ && now >= last_activity_ + std::chrono::seconds(interval())) {
    return Verdict::Silent;
  }
  return Verdict::Alive;
}

std::int64_t HangWatch::idle_ms(Clock::time_point now) const {
  if (!running_) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - last_activity_).count();
}

}  // namespace pai::launcher
