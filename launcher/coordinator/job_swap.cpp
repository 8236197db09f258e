#include "launcher/coordinator/job_swap.h"

#include <algorithm>

namespace pai::launcher::coordinator {

void JobSwap::noticed(const Diagnosis& verdict, Clock::time_point now) {
  const bool slow =
      verdict.cls == DiagnosisClass::RankNonCommSlow || verdict.cls == DiagnosisClass::RankCommSlow;
  if (!slow) return;
  candidate(SwapCause{.node = verdict.node,
                      .node_name = verdict.node_name,
                      .cls = to_string(verdict.cls),
                      .evidence = verdict.evidence,
                      .verdict = verdict,
                      .nic = std::nullopt},
            now);
}

void JobSwap::noticed(const NicVerdict& verdict, const std::string& node_name,
                      Clock::time_point now) {
  if (!verdict.critical) return;
  candidate(SwapCause{.node = verdict.node,
                      .node_name = node_name,
                      .cls = std::string("nic ") + to_string(verdict.problem),
                      .evidence = verdict.evidence,
                      .verdict = std::nullopt,
                      .nic = verdict},
            now);
}

void JobSwap::candidate(SwapCause cause, Clock::time_point now) {
  if (!policy_.enabled || cause.node < 0 || spent_.contains(cause.node)) return;
  const int node = cause.node;
  candidates_.try_emplace(node, std::move(cause), now);
}

std::optional<SwapCause> JobSwap::due(Clock::time_point now,
                                      const std::function<bool(const SwapCause&)>& holds) {
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

void JobSwap::begin(const SwapCause& cause, std::int64_t request, Clock::time_point now) {
  phase_ = Phase::Waiting;
  cause_ = cause;
  request_ = request;
  deadline_ = now + std::chrono::seconds(policy_.checkpoint_timeout_seconds);
  candidates_.erase(cause.node);
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
  spent_.insert(cause_.node);
  phase_ = Phase::Idle;
}

}  // namespace pai::launcher::coordinator
