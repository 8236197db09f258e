// Hang detection for one instance: silence longer than the hang interval, or ranks still
// running long after one of them exited (design §8).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

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
  /// The adaptive interval (spec `hang.adaptive`; design §8): once some rank has ended
  /// `warmup_steps` steps in this attempt, the silence interval is max(floor_seconds,
  /// factor x the p99 of the recent step times), never above the plan's interval. factor 0
  /// (the default) keeps the interval fixed.
  void set_adaptive(double factor, std::int64_t floor_seconds, int warmup_steps);
  /// Rank `rank` ended `count` steps taking `mean_seconds` each on average, as its telemetry
  /// said at `now`: progress (activity), and a step-time sample for the adaptive interval.
  void steps_ended(Clock::time_point now, int rank, std::int64_t count, double mean_seconds);

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

  /// The silence interval in force (seconds); 0 when detection is off. A stage's interval
  /// (set_interval) wins over the adaptive one.
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
  // The adaptive interval: its settings, the recent step-time samples (at most kMaxSamples,
  // oldest first out), the steps each rank ended this attempt, and the interval they give
  // (0 until warmed up).
  static constexpr std::size_t kMaxSamples = 1024;
  double adaptive_factor_ = 0;
  std::int64_t adaptive_floor_ = 0;
  std::int64_t warmup_steps_ = 0;
  std::vector<double> samples_;
  std::size_t next_sample_ = 0;
  std::map<int, std::int64_t> steps_by_rank_;
  std::int64_t adaptive_interval_ = 0;
};

}  // namespace pai::launcher
