// Sanity checks re-run on the coordinator's request, in a thread so heartbeats keep flowing.
#pragma once

#include <string>
#include <thread>
#include <vector>

#include "launcher/checks/check_result.h"
#include "launcher/node/sanity_check_runner.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// The SanityCheckRunner of a node launcher: checks::run_sanity_checks in a thread, its
/// results handed back on the supervisor's loop. While the checks run, the supervisor reaps
/// only its own children, so the checks can wait for theirs.
class BackgroundChecks final : public SanityCheckRunner {
 public:
  /// Checks `plan` (which must outlive this) for `supervisor`'s node, named `node` in the
  /// plan (its check history is kept under that name: before `assign` the placement checked
  /// is the first instance's).
  BackgroundChecks(const Plan& plan, std::string node, Supervisor& supervisor);
  /// Waits for checks still running.
  ~BackgroundChecks() override;
  BackgroundChecks(const BackgroundChecks&) = delete;
  BackgroundChecks& operator=(const BackgroundChecks&) = delete;

  /// Throws std::runtime_error when the pipe that wakes the loop cannot be created.
  void start(const Placement& placement, const checks::CheckOptions& options, Done done) override;

 private:
  const Plan& plan_;
  std::string node_;
  Supervisor& supervisor_;
  std::thread thread_;
  int pipe_[2] = {-1, -1};
  std::vector<checks::CheckResult> results_;
  Done done_;
};

}  // namespace pai::launcher
