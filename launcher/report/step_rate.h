// The job's step rate over time, from the steps its journal records: bounded however many
// samples come, in whatever order the journals are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pai::launcher::report {

/// One bucket of the step rate: the samples that ended in [start_ms, start_ms + width_ms).
struct StepRateBucket {
  std::int64_t start_ms = 0;
  std::int64_t width_ms = 0;
  double steps_per_second = 0;  ///< the mean of the rates of the samples in the bucket
  std::int64_t rates = 0;       ///< how many rates that mean is of (0: only first samples)
  std::int64_t last_step = -1;  ///< the highest step recorded in the bucket
};

/// Step samples of several series (a rank, or an instance) folded into at most `max_buckets`
/// time buckets. A bucket is 1 s wide at first; when there are more than max_buckets, the
/// width doubles and neighbours merge, so memory stays bounded for any journal. Buckets are
/// aligned on multiples of their width since the epoch, so the order of the samples does not
/// matter.
class StepRate {
 public:
  explicit StepRate(std::size_t max_buckets = 2000) : max_buckets_(max_buckets) {}

  /// Series `series` was at `step` at `unix_ms`. A series' rate is the steps it advanced since
  /// its previous sample over the time between them (samples of a series must come in time
  /// order); a step that goes back (a restart from a checkpoint) starts the series afresh.
  void sample(const std::string& series, std::int64_t unix_ms, std::int64_t step);

  /// The buckets in time order.
  std::vector<StepRateBucket> buckets() const;
  /// Samples seen.
  std::int64_t samples() const { return samples_; }

 private:
  struct Sum {
    double rate_sum = 0;
    std::int64_t rates = 0;
    std::int64_t last_step = -1;
  };
  struct Last {
    std::int64_t unix_ms;
    std::int64_t step;
  };
  void add(std::int64_t unix_ms, std::int64_t step, const double* rate);

  std::size_t max_buckets_;
  std::int64_t width_ms_ = 1000;
  std::map<std::int64_t, Sum> sums_;  // by bucket index (unix_ms / width_ms_)
  std::map<std::string, Last> last_;
  std::int64_t samples_ = 0;
};

}  // namespace pai::launcher::report
