// Hang detection for one instance: silence longer than the hang interval, or ranks still
// running long after one of them exited (design §8).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace pai::launcher {

/// Tracks one running instance's last sign of life against its deadlines. Pure: the caller
/// passes the time, so tests need no clock.
class HangWatch {
 public:
  using Clock = std::chrono::steady_clock;
  /// What check() found.
  enum class Verdict { Alive, Silent, StuckExiting };

  /// `enabled`, `interval_seconds` and `exit_interval_seconds` are the plan's hang settings.
  HangWatch(bool enabled, std::int64_t interval_seconds, std::int64_t exit_interval_seconds);

  /// The instance (re)started at `now`: everything is fresh, deadlines armed.
  void start(Clock::time_point now);
  /// The instance is not running: no deadlines until start().
  void stop();
  /// Output or a progress report at `now`.
  void activity(Clock::time_point now);
  /// A rank exited successfully at `now` while others still run (the first one arms the
  /// exit deadline).
  void rank_succeeded(Clock::time_point now);
  /// A stage-specific interval from `pai-launch ctl hang-interval` (it also enables
  /// detection); 0 restores the plan's setting, a negative value turns detection off. Until
  /// the next start(): a new attempt begins with the plan's settings.
  void set_interval(std::int64_t seconds);
  /// The exit interval from `ctl exit-hang-interval`; 0 restores the plan's. Until start().
  void set_exit_interval(std::int64_t seconds);

  /// Whether silence counts here. Off in a multi-node job: the coordinator judges silence
  /// job-wide from heartbeats; "stuck exiting" is still judged here.
  void set_silence_verdicts(bool on) { silence_verdicts_ = on; }
  /// Milliseconds since the last activity (0 when not running).
  std::int64_t idle_ms(Clock::time_point now) const;

  /// The silence interval in force (seconds); 0 when detection is off.
  std::int64_t interval() const;
  /// The exit interval in force (seconds).
  std::int64_t exit_interval() const {
    return exit_override_ > 0 ? exit_override_ : exit_interval_;
  }
  /// The earliest moment check() can find a hang, or nullopt.
  std::optional<Clock::time_point> deadline() const;
  /// Whether the instance counts as hung at `now`.
  Verdict check(Clock::time_point now) const;

 private:
  bool plan_enabled_;
  std::int64_t plan_interval_;
  std::int64_t exit_interval_;
  std::int64_t override_ = 0;  ///< > 0 seconds, < 0 off, 0 the plan's
  std::int64_t exit_override_ = 0;
  bool silence_verdicts_ = true;
  bool running_ = false;
  Clock::time_point last_activity_{};
  std::optional<Clock::time_point> first_exit_;
};

}  // namespace pai::launcher
