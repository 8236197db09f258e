// `custom` checks: the job's own commands, run with /bin/sh -c and a timeout.
#pragma once

#include <cstddef>

#include "launcher/checks/check_result.h"
#include "launcher/checks/child_containment.h"
#include "libpai/plan.h"

namespace pai::checks {

/// How much of a custom check's output is kept: its last 64 KiB.
inline constexpr std::size_t kCustomOutputCap = 64 * 1024;

/// Runs `check.command` with /bin/sh -c in its own process group, stdout and stderr captured
/// (the last kCustomOutputCap bytes). Exit 0 passes; another status, a signal or the timeout
/// (the group is killed) fails, with the output tail as the detail. The result is named
/// "custom:<name>". With `containment` the command runs in a place of its own (a cgroup) and
/// nothing it starts outlives the check, also what left its process group.
CheckResult run_custom_check(const CustomCheck& check, ChildContainment* containment = nullptr);

}  // namespace pai::checks
