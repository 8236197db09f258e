#include "launcher/coordinator/instance_runs.h"

namespace pai::launcher::coordinator {

void InstanceRuns::set_run(int i, Run run) {
  Instance& inst = at(i);
  if (inst.run == Run::Stopping) --stopping_;
  inst.run = run;
  if (run == Run::Stopping) ++stopping_;
}

void InstanceRuns::set_pending(int i, bool pending) {
  Instance& inst = at(i);
  pending_ += static_cast<int>(pending) - static_cast<int>(inst.start_pending);
  inst.start_pending = pending;
}

void InstanceRuns::set_backoff(int i, std::optional<Clock::time_point> until) {
  Instance& inst = at(i);
  if (inst.backoff_until) backoffs_.erase({*inst.backoff_until, i});
  inst.backoff_until = until;
  if (until) backoffs_.emplace(*until, i);
}

std::optional<Clock::time_point> InstanceRuns::next_backoff() const {
  if (backoffs_.empty()) return std::nullopt;
  return backoffs_.begin()->first;
}

std::optional<int> InstanceRuns::take_elapsed_backoff(Clock::time_point now) {
  if (backoffs_.empty() || backoffs_.begin()->first > now) return std::nullopt;
  const int i = backoffs_.begin()->second;
  set_backoff(i, std::nullopt);
  return i;
}

}  // namespace pai::launcher::coordinator
