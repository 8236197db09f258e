#include "launcher/coordinator/restart_fabric.h"

namespace pai::launcher::coordinator {

bool RestartFabric::wanted(bool started) const {
  const SanityCheck& sc = state_.plan.sanity_check;
  return started && sc.enabled && sc.fabric.enabled && sc.fabric.before_restarts &&
         state_.plan.fault_tolerance.mode == FaultToleranceMode::Sync;
}

bool RestartFabric::holds_starts(Clock::time_point now, bool started) {
  if (check_) return true;
  if (wanted(started) && !passed_) {
    check_.emplace(state_);
    if (check_->start(now)) return true;
    check_.reset();
  }
  passed_ = false;  // the starts now ready are what it passed for
  return false;
}

std::optional<std::vector<FabricExclusion>> RestartFabric::take_result() {
  if (!check_ || !check_->done()) return std::nullopt;
  std::vector<FabricExclusion> excluded = check_->exclusions();
  check_.reset();
  passed_ = true;
  return excluded;
}

void RestartFabric::node_lost(int node, Clock::time_point now) {
  if (check_) check_->node_lost(node, now);
}

void RestartFabric::tick(Clock::time_point now) {
  if (check_) check_->tick(now);
}

std::optional<Clock::time_point> RestartFabric::next_deadline() const {
  return check_ ? check_->next_deadline() : std::nullopt;
}

}  // namespace pai::launcher::coordinator
