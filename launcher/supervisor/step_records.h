// When a rank's step goes into the journal (`steps` records): its first step, then at most one
// record every interval while the step moves, and its last step when it ends. The report's
// step-rate panel and the goodput account read the training's pace from the journal alone, at
// a bounded cost: a rank stepping all day writes 8,640 records (about 1 MB) at the default
// 10 s, however fast it steps.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace pai::launcher {

class StepRecords {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kDefaultInterval{10};

  explicit StepRecords(Clock::duration interval = kDefaultInterval) : interval_(interval) {}

  /// The rank stood at `step` at `now`: the step to journal now, if one is due (the first
  /// step seen; a step that moved, once the interval since the previous record has passed).
  /// Negative steps (none yet) are never journaled.
  std::optional<std::int64_t> sample(std::int64_t step, Clock::time_point now);

  /// The rank ended: its latest step, when that was not journaled yet.
  std::optional<std::int64_t> last();

 private:
  Clock::duration interval_;
  std::int64_t latest_ = -1;     // the latest step seen
  std::int64_t journaled_ = -1;  // the latest step journaled
  std::optional<Clock::time_point> journaled_at_;
};

}  // namespace pai::launcher
