// Swapping a degrading node for a spare before it fails (spec `faultTolerance.swap`,
// docs/swap.md): which node to swap and where a swap stands. A slow verdict of the diagnosis
// (RankNonCommSlow, RankCommSlow) that names a node, or a critical NIC verdict on one of its
// ports (errors, flapping, down), makes the node a candidate; once the verdict has held for
// `swap.after`, the hub asks the ranks for a checkpoint (waiting), stops the job when one is
// saved (stopping), and starts it again with the spare in the node's place.
// A node is swapped, or its swap given up, once per run of the coordinator. Internal to
// launcher/coordinator/.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "launcher/policy/diagnosis.h"
#include "launcher/policy/nic_verdict.h"
#include "libpai/plan.h"

namespace pai::launcher::coordinator {

/// What degrades a node: a verdict of the diagnosis or of the NIC watch, one of them set.
struct SwapCause {
  int node = -1;
  std::string node_name;
  std::string cls;  ///< "RankNonCommSlow", "RankCommSlow", "nic errors", "nic flapping", ...
  std::string evidence;
  std::optional<Diagnosis> verdict;
  std::optional<NicVerdict> nic;
};

class JobSwap {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Phase { Idle, Waiting, Stopping };

  explicit JobSwap(const SwapPolicy& policy) : policy_(policy) {}

  bool enabled() const { return policy_.enabled; }
  Phase phase() const { return phase_; }

  /// A verdict of the diagnosis at `now`: a slow one naming a node becomes that node's
  /// candidate (timed from its first verdict), unless the node was swapped or given up.
  void noticed(const Diagnosis& verdict, Clock::time_point now);
  /// A NIC verdict on a port of node `node_name`: a critical one (errors, flapping, down)
  /// makes the node a candidate, as above.
  void noticed(const NicVerdict& verdict, const std::string& node_name, Clock::time_point now);
  /// The first candidate, in node order, whose verdict has held for `swap.after` by `now`;
  /// candidates whose verdict no longer `holds` are dropped first. nullopt while a swap runs.
  std::optional<SwapCause> due(Clock::time_point now,
                               const std::function<bool(const SwapCause&)>& holds);
  /// The hub looked at the swap at `now` (due() or the waiting swap).
  void checked(Clock::time_point now) { checked_ = now; }
  /// When to look again: when due() may next find one (a second after the latest look at the
  /// soonest), or, while a swap waits for its checkpoint, a second after the latest look or
  /// its deadline; nullopt when nothing is pending.
  std::optional<Clock::time_point> next_due() const;

  /// The swap of `cause`'s node begins: the ranks were asked for checkpoint `request`.
  void begin(const SwapCause& cause, std::int64_t request, Clock::time_point now);
  /// Waiting: the cause being acted on, its request, when the wait for a save ends.
  const SwapCause& cause() const { return cause_; }
  std::int64_t request() const { return request_; }
  Clock::time_point deadline() const { return deadline_; }
  /// The checkpoint of `step` is saved: the job stops.
  void saved(std::int64_t step, Clock::time_point now);
  /// Stopping: the checkpoint's step and when it was saved.
  std::int64_t step() const { return step_; }
  Clock::time_point saved_at() const { return saved_at_; }
  /// The swap is over (done or given up): its node is never a candidate again.
  void end();
  /// `node` is never swapped: no longer a candidate, and never again.
  void skip(int node);

 private:
  const SwapPolicy& policy_;
  Phase phase_ = Phase::Idle;
  /// A candidate for `cause`'s node from `now`, unless the node is spent or has one.
  void candidate(SwapCause cause, Clock::time_point now);

  std::map<int, std::pair<SwapCause, Clock::time_point>> candidates_;  // node -> first verdict
  std::set<int> spent_;                                                // nodes swapped or given up
  SwapCause cause_;
  std::int64_t request_ = 0;
  Clock::time_point deadline_{};
  std::int64_t step_ = 0;
  Clock::time_point saved_at_{};
  Clock::time_point checked_{};  // the latest checked()
};

}  // namespace pai::launcher::coordinator
