#include "libpai/checkpoint_interval.h"

#include <algorithm>
#include <cmath>

#include "libpai/duration.h"

namespace pai {
namespace {

// log(e^x - 1) for x > 0 without overflow: e^x leaves double's range past x = 709.
double log_expm1(double x) {
  return x > 30 ? x + std::log1p(-std::exp(-x)) : std::log(std::expm1(x));
}

}  // namespace

double daly_interval(double job_mtbf, double cost) {
  if (!(cost > 0)) return 0;
  if (cost >= 2 * job_mtbf) return job_mtbf;
  const double ratio = cost / (2 * job_mtbf);
  const double tau = std::sqrt(2 * cost * job_mtbf) * (1 + std::sqrt(ratio) / 3 + ratio / 9) - cost;
  return std::max(tau, 0.0);
}

std::int64_t planned_interval_seconds(double job_mtbf, double cost) {
  const double tau = daly_interval(job_mtbf, cost);
  // NaN (a NaN input) fails both comparisons of clamp: the bound it would take is 1 s.
  if (std::isnan(tau)) return 1;
  return static_cast<std::int64_t>(
      std::clamp(std::round(tau), 1.0, static_cast<double>(kMaxDurationSeconds)));
}

double expected_ettr(double interval, double cost, double restart, double job_mtbf) {
  if (!(interval > 0) || !(job_mtbf > 0)) return 0;
  // ETTR = interval / (M e^(R/M) expm1((interval + cost) / M)), in logarithms.
  const double log_ettr = std::log(interval) - std::log(job_mtbf) - restart / job_mtbf -
                          log_expm1((interval + cost) / job_mtbf);
  if (std::isnan(log_ettr)) return 0;
  return std::clamp(std::exp(log_ettr), 0.0, 1.0);
}

}  // namespace pai
