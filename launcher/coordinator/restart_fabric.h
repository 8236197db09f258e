// The fabric check before a job-wide restart (sanityCheck.fabric.beforeRestarts, sync mode):
// the starts now ready wait while it runs; once it is over its exclusions go to the job's run
// (spares take the instances of excluded nodes) and the check counts as passed for those
// starts. The job's first start is not held: the rendezvous ran the check. Internal to
// launcher/coordinator/.
#pragma once

#include <optional>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/fabric_check.h"

namespace pai::launcher::coordinator {

class RestartFabric {
 public:
  explicit RestartFabric(CoordinatorState& state) : state_(state) {}

  /// Whether restarts wait for the check (the spec asks for it, sync mode) once the job has
  /// `started` (its first start is past).
  bool wanted(bool started) const;
  /// Whether starts ready at `now` must wait: a check runs, or one is wanted, not yet passed,
  /// and starts now (one with fewer than 2 nodes to pair is over at once and holds nothing).
  /// Not holding uses up a passed check.
  bool holds_starts(Clock::time_point now, bool started);
  /// The running check, for the nodes' reports; nullptr when none runs.
  FabricCheck* running() { return check_ ? &*check_ : nullptr; }
  /// The check's exclusions once it is over (it then counts as passed); nullopt while it
  /// runs or when none runs.
  std::optional<std::vector<FabricExclusion>> take_result();
  /// The node's launcher was lost: its pairs fail.
  void node_lost(int node, Clock::time_point now);
  void tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;

 private:
  CoordinatorState& state_;
  std::optional<FabricCheck> check_;
  bool passed_ = false;  // a check passed for the starts now pending
};

}  // namespace pai::launcher::coordinator
