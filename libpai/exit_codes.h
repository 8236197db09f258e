// pai-launch run's exit codes that schedulers act on (docs/launch.md, "Exit codes"): which
// end a job for good, and which say that running it again is right. The Kubernetes and Slurm
// targets render them into the files they write; the launcher exits with them.
#pragma once

#include <array>

namespace pai {

/// This launcher lost its job's coordinator after joining it (the connection closed, or the
/// coordinator went silent) and stopped its processes: not a verdict of the job, which did
/// not fail on its own account; running it again, from its checkpoint, is right.
inline constexpr int kExitCoordinatorLost = 3;

/// pai-launch's exit codes that end a job for good: 1 the job failed, 2 usage or plan
/// refused, 126 and 127 the command cannot run, 129, 130 and 143 the job was cancelled by
/// SIGHUP, SIGINT or SIGTERM. With 0 (success), every verdict the coordinator's launcher
/// gives. Sorted, as Kubernetes requires of a podFailurePolicy's exit codes.
inline constexpr std::array<int, 7> kPaiVerdictExitCodes = {1, 2, 126, 127, 129, 130, 143};

}  // namespace pai
