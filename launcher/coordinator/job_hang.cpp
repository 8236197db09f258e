#include "launcher/coordinator/job_hang.h"

#include <algorithm>

namespace pai::launcher::coordinator {

namespace {

// Every running instance's time of reaching its hang interval; nullopt when the job is not
// steady or an instance can never hang.
std::optional<Clock::time_point> all_idle_at(const CoordinatorState& state) {
  std::optional<Clock::time_point> latest;
  for (const Instance& inst : state.instances) {
    if (inst.start_pending || inst.backoff_until || inst.run == Run::Stopping) return std::nullopt;
    if (inst.run != Run::Running) continue;
    if (!inst.heartbeat || inst.heartbeat->hang_interval_s <= 0) return std::nullopt;
    const InstanceHeartbeat& hb = *inst.heartbeat;
    const auto due = hb.received + std::chrono::seconds(hb.hang_interval_s) -
                     std::chrono::milliseconds(hb.idle_ms);
    latest = latest ? std::max(*latest, due) : due;
  }
  return latest;
}

}  // namespace

std::optional<JobHang> find_job_hang(const CoordinatorState& state, Clock::time_point now) {
  const auto at = all_idle_at(state);
  if (!at || now < *at) return std::nullopt;
  JobHang hang;
  std::int64_t longest = -1;
  for (std::size_t i = 0; i < state.instances.size(); ++i) {
    const Instance& inst = state.instances[i];
    if (inst.run != Run::Running) continue;
    const auto idle =
        std::chrono::milliseconds(inst.heartbeat->idle_ms) +
        std::chrono::duration_cast<std::chrono::milliseconds>(now - inst.heartbeat->received);
    if (idle.count() > longest) {
      longest = idle.count();
      hang.instance = static_cast<int>(i);
    }
  }
  hang.idle_seconds = longest / 1000;
  return hang;
}

std::optional<Clock::time_point> next_job_hang_check(const CoordinatorState& state) {
  return all_idle_at(state);
}

std::optional<JobHang> JobHangWatch::check(const CoordinatorState& state, Clock::time_point now,
                                           bool due) {
  if (!due && now < walked_ + kWalkEvery) {
    stale_ = true;
    return std::nullopt;
  }
  walked_ = now;
  stale_ = false;
  next_check_ = next_job_hang_check(state);
  if (!next_check_ || now < *next_check_) return std::nullopt;
  return find_job_hang(state, now);
}

std::optional<Clock::time_point> JobHangWatch::next_deadline() const {
  if (!stale_) return next_check_;
  const Clock::time_point walk = walked_ + kWalkEvery;
  return next_check_ && *next_check_ < walk ? next_check_ : walk;
}

}  // namespace pai::launcher::coordinator
