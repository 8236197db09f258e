// The sanity checks of design §7 on this node: which run, in which order, with which timeout.
#pragma once

#include <string>
#include <vector>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Runs the checks `options.only` names (or, when empty, the plan's sanityCheck.checks followed
/// by "custom" and "fingerprint", node_fingerprint.h) for `placement`, in that order (a repeated name runs once), one result per
/// built-in check and one per custom check. It does not look at sanityCheck.enabled: whether to
/// check at all is the caller's decision. Built-in checks get options.timeout_seconds, or the
/// plan's sanityCheck.timeout when it is 0. Throws std::invalid_argument for a name not in
/// kCheckNames.
std::vector<CheckResult> run_sanity_checks(const Plan& plan, const Placement& placement,
                                           const CheckOptions& options);

/// Whether every result passed or was skipped.
bool all_passed(const std::vector<CheckResult>& results);

}  // namespace pai::checks
