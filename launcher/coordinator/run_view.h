// What the job's renderings (`status`, the metrics) read of the run beyond CoordinatorState:
// a view, so they depend on neither JobRun nor its parts. Internal to launcher/coordinator/.
#pragma once

namespace pai::launcher::coordinator {

class RunView {
 public:
  virtual ~RunView() = default;
  /// Whether the job is paused by `pai-launch stop`.
  virtual bool paused() const = 0;
  /// The restarts the policy counted for `instance`.
  virtual int restart_count(int instance) const = 0;
};

}  // namespace pai::launcher::coordinator
