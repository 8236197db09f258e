// How long a restart waits (issue 39: backoff that fits the failure). A failure that happens
// once for reasons outside the job — a process killed with SIGKILL by someone, a node lost —
// gains nothing from waiting: the instance restarts at once the first time (a lost node's only
// onto a ready spare: without one the coordinator keeps the backoff, the node's time to come
// back, coordinator/job_run.cpp). Every other
// failure, and a repeat of any, waits the spec's `restart.backoff`, doubled with each repeat of
// the same failure, up to kMaxBackoffSeconds (or the spec's backoff when that is longer), so a
// crash loop slows down instead of hammering a shared file system or a license server.
#pragma once

#include <cstdint>
#include <string>

namespace pai::launcher {

/// The cap of a grown backoff (a spec's own longer backoff is kept as it is).
inline constexpr std::int64_t kMaxBackoffSeconds = 300;

/// Whether a failure of `signature` (Classification::signature) is a one-off: "signal:9" (the
/// OOM killer's SIGKILL is classified "oom", not this) or "node-lost".
bool one_off_failure(const std::string& signature);

/// The seconds before the restart after a failure of `signature` seen `same` times in this job
/// (1 = the first), with the spec's backoff `backoff`.
std::int64_t restart_backoff(std::int64_t backoff, const std::string& signature, int same);

}  // namespace pai::launcher
