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

}  // namespace pai::launcher::coordinator
