// What a node agent needs to run the sanity checks again when the coordinator asks
// (`run-checks`), without stopping its heartbeats (background_checks.h is the real one).
#pragma once

#include <functional>
#include <vector>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// Runs the plan's sanity checks for this node in the background.
class SanityCheckRunner {
 public:
  /// Called with the results, on the agent's thread.
  using Done = std::function<void(std::vector<checks::CheckResult>)>;

  virtual ~SanityCheckRunner() = default;

  /// Starts the checks of `placement`; `done` is called once they ended. Ignored (and its
  /// `done` never called) while a run is in progress.
  virtual void start(const Placement& placement, const checks::CheckOptions& options,
                     Done done) = 0;
};

}  // namespace pai::launcher
