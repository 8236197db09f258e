#include "launcher/checks/custom_check.h"

#include <chrono>

#include "launcher/checks/child_process.h"

namespace pai::checks {

CheckResult run_custom_check(const CustomCheck& check, ChildContainment* containment) {
  std::chrono::milliseconds timeout(check.timeout_seconds * 1000);
  ChildOutcome outcome = run_shell_command(check.command, timeout, kCustomOutputCap, containment);
  bool passed = outcome.ending == ChildOutcome::Exited && outcome.code == 0;
  CheckResult result =
      make_result("custom:" + check.name, passed ? CheckResult::Passed : CheckResult::Failed,
                  describe_ending(outcome, timeout));
  result.detail = output_tail(outcome);
  result.seconds = outcome.seconds;
  return result;
}

}  // namespace pai::checks
