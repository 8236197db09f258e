// The bookkeeping of the instances' runs that the job's run walks for: every change of an
// instance's Run, start_pending and backoff goes through here, so the counts of instances
// stopping and pending, and the backoffs by when they are due, are had without a walk of
// every instance (a job-wide restart of N instances calls start_ready() N times). Internal to
// launcher/coordinator/.
#pragma once

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"

namespace pai::launcher::coordinator {

class InstanceRuns {
 public:
  explicit InstanceRuns(std::vector<Instance>& instances) : instances_(instances) {}

  /// Sets instance `i`'s Run.
  void set_run(int i, Run run);
  /// Sets whether instance `i`'s start is pending.
  void set_pending(int i, bool pending);
  /// Sets (nullopt: clears) when instance `i`'s restart backoff ends.
  void set_backoff(int i, std::optional<Clock::time_point> until);

  /// Instances whose Run is Stopping.
  int stopping() const { return stopping_; }
  /// Instances whose start is pending.
  int pending() const { return pending_; }
  /// Whether any instance backs off.
  bool backing_off() const { return !backoffs_.empty(); }
  /// When the earliest backoff ends; nullopt when none runs.
  std::optional<Clock::time_point> next_backoff() const;
  /// The instance whose backoff ended first by `now` (its backoff cleared); nullopt if none.
  std::optional<int> take_elapsed_backoff(Clock::time_point now);

 private:
  Instance& at(int i) { return instances_.at(static_cast<std::size_t>(i)); }

  std::vector<Instance>& instances_;
  int stopping_ = 0;
  int pending_ = 0;
  std::set<std::pair<Clock::time_point, int>> backoffs_;  // (due, instance)
};

}  // namespace pai::launcher::coordinator
