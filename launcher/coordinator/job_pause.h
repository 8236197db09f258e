// Pausing and resuming the job (`pai-launch stop|start`, design §8): a pause stops every
// running instance outside the restart policy's view (their reports are not fed to it until
// the job resumes); resuming starts the paused instances again, each start an attempt of its
// own though not a restart of the policy's. Internal to launcher/coordinator/.
#pragma once

#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/instance_runs.h"

namespace pai::launcher::coordinator {

/// The answer to a job-control request: `ok` or `error` with `text`.
struct ControlAnswer {
  bool ok = true;
  std::string text;
};

class JobPause {
 public:
  JobPause(CoordinatorState& state, InstanceRuns& runs) : state_(state), runs_(runs) {}

  bool paused() const { return paused_; }
  /// Stops every running instance (SIGTERM, "paused by WHO") and marks it paused.
  ControlAnswer pause(const std::string& who);
  /// Ends the pause: the paused instances, in order, go to `starting` with their marks
  /// cleared and their resume counts raised; the caller starts them.
  ControlAnswer resume(const std::string& who, std::vector<int>& starting);

 private:
  CoordinatorState& state_;
  InstanceRuns& runs_;
  bool paused_ = false;
};

}  // namespace pai::launcher::coordinator
