// The `mounts` and `disk` checks: mount sources exist with the access the job needs, the output
// directory is writable, and enough space is free where the job writes.
#pragma once

#include <cstdint>
#include <string>

#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::checks {

/// `mounts`: every mount source exists; read-only ones are readable, the others writable (a
/// probe file is created and removed); the output directory (or, when it does not exist yet, its
/// nearest existing parent) is writable.
CheckResult run_mounts_check(const Plan& plan);

/// `disk`: free space (statvfs, as an unprivileged user sees it) at the output directory and at
/// every writable mount source is at least sanityCheck.disk_min_free_bytes; with neither, at the
/// working directory. The figure is the smallest free space found.
CheckResult run_disk_check(const Plan& plan);

}  // namespace pai::checks
