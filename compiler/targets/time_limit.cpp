#include "compiler/targets/time_limit.h"

#include <cstdio>

namespace pai {

std::int64_t stop_lead_seconds(const Plan& plan) {
  const FaultTolerance& ft = plan.fault_tolerance;
  return ft.grace_period_seconds + ft.checkpoint_wait_seconds + 60;
}

std::int64_t scheduler_deadline_seconds(const Plan& plan) {
  if (plan.time_limit_seconds <= 0) return 0;
  return plan.time_limit_seconds + stop_lead_seconds(plan);
}

std::string slurm_time(std::int64_t seconds) {
  const std::int64_t minutes = (seconds + 59) / 60;
  char text[48];
  std::snprintf(text, sizeof text, "%lld-%02lld:%02lld:00", static_cast<long long>(minutes / 1440),
                static_cast<long long>(minutes / 60 % 24), static_cast<long long>(minutes % 60));
  return text;
}

}  // namespace pai
