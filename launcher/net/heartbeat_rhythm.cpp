#include "launcher/net/heartbeat_rhythm.h"

#include <algorithm>

namespace pai::net {

int coordinator_beat_intervals(std::size_t nodes) {
  // Rounded up without adding first, and clamped: no node count may wrap either.
  const std::size_t periods = nodes / kCoordinatorBeatsPerInterval +
                              (nodes % kCoordinatorBeatsPerInterval != 0 ? 1 : 0);
  return static_cast<int>(std::clamp<std::size_t>(periods, 2, 1 << 20));
}

int coordinator_misses(std::size_t nodes) {
  return coordinator_beat_intervals(nodes) + kCoordinatorBeatSlack;
}

int coordinator_beat_intervals(const Plan& plan) {
  return coordinator_beat_intervals(plan.hosts.size() + plan.spares.size());
}

int coordinator_misses(const Plan& plan) {
  return coordinator_misses(plan.hosts.size() + plan.spares.size());
}

}  // namespace pai::net
