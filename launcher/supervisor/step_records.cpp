#include "launcher/supervisor/step_records.h"

namespace pai::launcher {

std::optional<std::int64_t> StepRecords::sample(std::int64_t step, Clock::time_point now) {
  if (step < 0) return std::nullopt;
  latest_ = step;
  if (step == journaled_) return std::nullopt;
  if (journaled_at_ && now - *journaled_at_ < interval_) return std::nullopt;
  journaled_ = step;
  journaled_at_ = now;
  return step;
}

std::optional<std::int64_t> StepRecords::last() {
  if (latest_ < 0 || latest_ == journaled_) return std::nullopt;
  journaled_ = latest_;
  return latest_;
}

}  // namespace pai::launcher
