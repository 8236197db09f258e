#include "launcher/policy/hang_watch.h"

#include <algorithm>
#include <cmath>

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
  // A new attempt warms up again (its first steps compile, load, restore).
  samples_.clear();
  next_sample_ = 0;
  steps_by_rank_.clear();
  adaptive_interval_ = 0;
}

void HangWatch::set_adaptive(double factor, std::int64_t floor_seconds, int warmup_steps) {
  adaptive_factor_ = factor;
  adaptive_floor_ = std::max<std::int64_t>(floor_seconds, 1);
  warmup_steps_ = std::max(warmup_steps, 1);
}

void HangWatch::steps_ended(Clock::time_point now, int rank, std::int64_t count,
                            double mean_seconds) {
  if (count <= 0) return;
  activity(now);
  if (adaptive_factor_ <= 0 || !std::isfinite(mean_seconds) || mean_seconds < 0) return;
  if (samples_.size() < kMaxSamples) {
    samples_.push_back(mean_seconds);
  } else {
    samples_[next_sample_] = mean_seconds;
    next_sample_ = (next_sample_ + 1) % kMaxSamples;
  }
  std::int64_t& steps = steps_by_rank_[rank];
  steps = count > INT64_MAX - steps ? INT64_MAX : steps + count;
  bool warm = false;
  for (const auto& [r, n] : steps_by_rank_) warm = warm || n >= warmup_steps_;
  if (!warm) return;
  // p99 by nearest rank.
  std::vector<double> sorted = samples_;
  const std::size_t k = static_cast<std::size_t>(std::ceil(0.99 * sorted.size())) - 1;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k), sorted.end());
  const double wanted = std::ceil(adaptive_factor_ * sorted[k]);
  const double ceiling = static_cast<double>(plan_interval_);
  adaptive_interval_ = static_cast<std::int64_t>(
      std::max(static_cast<double>(adaptive_floor_), std::min(wanted, ceiling)));
  adaptive_interval_ = std::min(adaptive_interval_, plan_interval_);
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
  if (!plan_enabled_) return 0;
  return adaptive_interval_ > 0 ? adaptive_interval_ : plan_interval_;
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
