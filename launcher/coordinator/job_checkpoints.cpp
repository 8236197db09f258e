#include "launcher/coordinator/job_checkpoints.h"

#include <cmath>

#include "libpai/checkpoint_interval.h"

namespace pai::launcher::coordinator {

JobCheckpoints::JobCheckpoints(const CheckpointPlan& plan) : plan_(plan) {
  advice_.interval_seconds = plan.interval_seconds;
}

bool JobCheckpoints::changed() const {
  return advice_.interval_seconds != plan_.interval_seconds || advice_.request > 0;
}

std::optional<journal::CheckpointInterval> JobCheckpoints::measured(double cost_seconds,
                                                                    std::int64_t saves) {
  const std::int64_t current = advice_.interval_seconds;
  if (current <= 0 || saves <= 0 || !(plan_.job_mtbf_seconds > 0)) return std::nullopt;
  if (!std::isfinite(cost_seconds) || cost_seconds < 0) return std::nullopt;
  const std::int64_t next = planned_interval_seconds(plan_.job_mtbf_seconds, cost_seconds);
  const std::int64_t moved = next > current ? next - current : current - next;
  if (moved < 1 || static_cast<double>(moved) < kMinChange * static_cast<double>(current)) {
    return std::nullopt;
  }
  advice_.interval_seconds = next;
  return journal::CheckpointInterval{
      .seconds = next,
      .previous_seconds = current,
      .cost_seconds = cost_seconds,
      .saves = saves,
      .expected_ettr =
          expected_ettr(static_cast<double>(next), cost_seconds,
                        static_cast<double>(plan_.restart_cost_seconds), plan_.job_mtbf_seconds)};
}

std::int64_t JobCheckpoints::request() { return ++advice_.request; }

}  // namespace pai::launcher::coordinator
