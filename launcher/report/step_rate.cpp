#include "launcher/report/step_rate.h"

#include <algorithm>

namespace pai::launcher::report {

namespace {

// Floor division: bucket -1 holds the millisecond before the epoch.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

void StepRate::sample(const std::string& series, std::int64_t unix_ms, std::int64_t step) {
  ++samples_;
  auto it = last_.find(series);
  if (it == last_.end()) {
    last_.emplace(series, Last{unix_ms, step});
    add(unix_ms, step, nullptr);
    return;
  }
  Last& last = it->second;
  if (step >= last.step && unix_ms > last.unix_ms) {
    const double rate = static_cast<double>(step - last.step) * 1000.0 /
                        static_cast<double>(unix_ms - last.unix_ms);
    add(unix_ms, step, &rate);
  } else {
    add(unix_ms, step, nullptr);
  }
  last = Last{unix_ms, step};
}

void StepRate::add(std::int64_t unix_ms, std::int64_t step, const double* rate) {
  Sum& sum = sums_[floor_div(unix_ms, width_ms_)];
  sum.last_step = std::max(sum.last_step, step);
  if (rate != nullptr) {
    sum.rate_sum += *rate;
    ++sum.rates;
  }
  while (sums_.size() > max_buckets_) {
    // Twice as wide: each pair of neighbours becomes one bucket.
    std::map<std::int64_t, Sum> merged;
    for (const auto& [index, s] : sums_) {
      Sum& into = merged[floor_div(index, 2)];
      into.rate_sum += s.rate_sum;
      into.rates += s.rates;
      into.last_step = std::max(into.last_step, s.last_step);
    }
    sums_ = std::move(merged);
    width_ms_ *= 2;
  }
}

std::vector<StepRateBucket> StepRate::buckets() const {
  std::vector<StepRateBucket> out;
  out.reserve(sums_.size());
  for (const auto& [index, s] : sums_) {
    StepRateBucket b;
    b.start_ms = index * width_ms_;
    b.width_ms = width_ms_;
    b.steps_per_second = s.rates > 0 ? s.rate_sum / static_cast<double>(s.rates) : 0;
    b.rates = s.rates;
    b.last_step = s.last_step;
    out.push_back(b);
  }
  return out;
}

}  // namespace pai::launcher::report
