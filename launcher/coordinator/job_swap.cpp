#include "launcher/coordinator/job_swap.h"

#include <algorithm>

namespace pai::launcher::coordinator {

void JobSwap::noticed(const Diagnosis& verdict, Clock::time_point now) {
  const bool slow =
      verdict.cls == DiagnosisClass::RankNonCommSlow || verdict.cls == DiagnosisClass::RankCommSlow;
  if (!policy_.enabled || !slow || verdict.node < 0 || spent_.contains(verdict.node)) return;
  candidates_.try_emplace(verdict.node, verdict, now);
}

std::optional<Diagnosis> JobSwap::due(Clock::time_point now,
                                      const std::function<bool(const Diagnosis&)>& holds) {
  if (phase_ != Phase::Idle) return std::nullopt;
  std::erase_if(candidates_, [&](const auto& c) { return !holds(c.second.first); });
  for (const auto& [node, candidate] : candidates_) {
    if (now - candidate.second >= std::chrono::seconds(policy_.after_seconds)) {
      return candidate.first;
    }
  }
  return std::nullopt;
}

std::optional<JobSwap::Clock::time_point> JobSwap::next_due() const {
  // A waiting swap is looked at every second: it may have to be given up.
  if (phase_ == Phase::Waiting) return std::min(deadline_, checked_ + std::chrono::seconds(1));
  if (phase_ != Phase::Idle) return std::nullopt;
  std::optional<Clock::time_point> next;
  for (const auto& [node, candidate] : candidates_) {
    // One that is due but cannot begin yet (no ready spare, a restart under way) is looked
    // at again a second later.
    const Clock::time_point at =
        std::max(candidate.second + std::chrono::seconds(policy_.after_seconds),
                 checked_ + std::chrono::seconds(1));
    if (!next || at < *next) next = at;
  }
  return next;
}

void JobSwap::begin(const Diagnosis& verdict, std::int64_t request, Clock::time_point now) {
  phase_ = Phase::Waiting;
  verdict_ = verdict;
  request_ = request;
  deadline_ = now + std::chrono::seconds(policy_.checkpoint_timeout_seconds);
  candidates_.erase(verdict.node);
}

void JobSwap::saved(std::int64_t step, Clock::time_point now) {
  phase_ = Phase::Stopping;
  step_ = step;
  saved_at_ = now;
}

void JobSwap::skip(int node) {
  candidates_.erase(node);
  spent_.insert(node);
}

void JobSwap::end() {
  spent_.insert(verdict_.node);
  phase_ = Phase::Idle;
}

}  // namespace pai::launcher::coordinator
