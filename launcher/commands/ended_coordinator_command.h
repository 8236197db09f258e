// `pai-launch ended-coordinator`: the coordinator of a job that ended, in a process of its own
// that outlives the launcher, answering the launchers that come late with how the job ended
// (coordinator/ended_coordinator.h). `pai-launch run` starts it when the job ended while a
// machine of the plan had no launcher connected; it is not meant to be run by hand.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "launcher/coordinator/ended_coordinator.h"

namespace pai::launcher {

/// The longest an ended coordinator serves.
inline constexpr std::chrono::seconds kEndedCoordinatorLimit{24 * 3600};

/// `pai-launch ended-coordinator JOB ADDRESS PORT SECONDS END [READY_FD]`: serves for SECONDS
/// (at most kEndedCoordinatorLimit) or until a new coordinator asks for the port, writing a
/// byte to READY_FD (then closed) once it listens. Returns 0 when it served, 1 when the port
/// or its name is taken (quietly: a new coordinator or another ended one is there), 2 for
/// malformed arguments (said on stderr).
int ended_coordinator_command(const std::vector<std::string>& args);

/// Starts `program` (this pai-launch) as `ended-coordinator` for `job`, detached: a session of
/// its own, stdin, stdout and stderr on /dev/null, an empty environment, none of this
/// process's descriptors but its readiness pipe. Returns its pid once it listens; throws
/// std::runtime_error (SpawnError) when it cannot be started, or does not listen within 5 s
/// (the port taken).
int start_ended_coordinator(const std::string& program, const coordinator::EndedJob& job,
                            std::chrono::seconds serve_for);

}  // namespace pai::launcher
