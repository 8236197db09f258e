// Job-wide hang detection (design §8): the job hangs when every running instance has been
// idle (no output, no progress report) for at least its hang interval, as the launchers'
// heartbeats say. Judged only while the job is steady: no instance starting, stopping or
// backing off, so one restart does not cascade into the next. Internal to
// launcher/coordinator/.
#pragma once

#include <cstdint>
#include <optional>

#include "launcher/coordinator/coordinator_state.h"

namespace pai::launcher::coordinator {

struct JobHang {
  int instance = 0;               ///< the instance idle longest
  std::int64_t idle_seconds = 0;  ///< how long it has been idle
};

/// The hang at `now`, or nullopt.
std::optional<JobHang> find_job_hang(const CoordinatorState& state, Clock::time_point now);

/// The earliest time find_job_hang() could find one if no heartbeat changes the picture;
/// nullopt when none can come (not steady, an instance without heartbeat or hang interval).
std::optional<Clock::time_point> next_job_hang_check(const CoordinatorState& state);

/// The job-wide hang check as the job's run makes it: on every tick, and on messages at most
/// once per kWalkEvery (a heartbeat then costs O(1), not a walk of every instance).
class JobHangWatch {
 public:
  /// How stale the check may be on messages: it is judged in seconds.
  static constexpr auto kWalkEvery = std::chrono::milliseconds(100);

  /// The hang at `now`, walking the instances when `due` (a tick) or when the last walk is
  /// kWalkEvery old; nullopt when none (or when the walk was left for later).
  std::optional<JobHang> check(const CoordinatorState& state, Clock::time_point now, bool due);
  /// When check() must run next: the earliest a hang can come, or the walk left for later.
  std::optional<Clock::time_point> next_deadline() const;

 private:
  std::optional<Clock::time_point> next_check_;  // as of the last walk
  Clock::time_point walked_;
  bool stale_ = false;  // a message came since the last walk
};

}  // namespace pai::launcher::coordinator
