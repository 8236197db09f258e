// env/<role>-<i>.sh: POSIX sh scripts exporting one instance's env contract.
#pragma once

#include <string>

#include "libpai/env_contract.h"
#include "libpai/plan.h"

namespace pai {

/// A script for `. env/<role>-<i>.sh` that exports process_env() for the instance.
/// Variables that differ per process are exported inside a `case "${LOCAL_RANK:-0}"`
/// so one script serves every local rank. Every value is quoted with shell_quote().
std::string render_env_script(const Plan& plan, const Placement& placement,
                              const ProcessContext& ctx);

}  // namespace pai
