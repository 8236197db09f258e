// The time a node agent reads itself (deadlines it computes), as a seam for tests.
#pragma once

#include <chrono>

namespace pai::launcher {

/// A source of steady (monotonic) time.
class MonotonicClock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~MonotonicClock() = default;
  /// The current time.
  virtual TimePoint now() const = 0;
};

/// std::chrono::steady_clock.
class SteadyClock final : public MonotonicClock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace pai::launcher
