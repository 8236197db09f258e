// Knowing the culprit during the run (design §12): the ranks' telemetry summaries that come
// with the launchers' heartbeats go into the policy's Diagnoser once a second; each verdict is
// journalled ("diagnosis") and shown, the latest hang verdict names the culprit of a job-wide
// hang, and with `diagnosis.action: isolate` a verdict excludes the node it names. Internal to
// launcher/coordinator/.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/diagnosis.h"
#include "launcher/policy/failure_classifier.h"

namespace pai::launcher::coordinator {

/// What `diagnosis.action: isolate` does with a verdict: a restart charged to `instance`
/// (whose failure the verdict stands for), with the node `exclude_node` out of the job (its
/// instance goes to a spare), or, when the verdict names nobody, with the links of `suspects`
/// tested by the fabric check before the restart (it excludes the node that loses packets).
struct Isolation {
  int instance = -1;
  int exclude_node = -1;  ///< -1: the links of `suspects` are tested instead
  std::vector<std::string> suspects;
};

/// The failure a verdict that is acted on stands for: retryable unless the policy is never.
Classification verdict_failure(const Diagnosis& verdict, RestartPolicy policy);

class JobDiagnosis {
 public:
  /// Judges the ranks of state.placed with the settings of its faultTolerance.diagnosis.
  explicit JobDiagnosis(const CoordinatorState& state);

  /// The telemetry of one instance's heartbeat from `node` (already checked to be its own).
  void observe(int node, const net::HeartbeatInstance& beat, Clock::time_point now);
  /// New verdicts, at most once a second (none before next_due()); each is recorded.
  std::vector<Diagnosis> decide(Clock::time_point now);
  /// When decide() has something to judge next; nullopt when diagnosis is off or no
  /// telemetry came.
  std::optional<Clock::time_point> next_due() const;
  /// The instance's ranks start again: what was known of them is dropped.
  void restarted(int instance);

  /// The latest hang verdict that names a rank or node, since the last restart.
  const std::optional<Diagnosis>& hang_culprit() const { return hang_culprit_; }
  /// Whether a slow verdict's condition still holds (Diagnoser::holds).
  bool holds(const Diagnosis& verdict) const { return diagnoser_.holds(verdict); }
  /// The instance holding the verdict's rank (or running on its node); -1 if none.
  int instance_of(const Diagnosis& verdict) const;
  /// How to isolate what `verdict` names; nullopt when there is nothing to do: its instance
  /// does not run or its node is already excluded, or it names nobody and either it is no
  /// RankCommHang, `links_testable` is false (no fabric check before restarts: the restart
  /// would find the same links, so the job-wide hang decides), or no suspect's instance runs.
  std::optional<Isolation> isolation(const Diagnosis& verdict, bool links_testable) const;

 private:
  /// The node now running global rank `rank`, -1 if none.
  int node_of_rank(std::int64_t rank) const;
  /// The index of the node at `address` (a plan or peer address), -1 if none.
  int node_at(const std::string& address, Clock::time_point now);

  const CoordinatorState& state_;
  bool enabled_;
  Diagnoser diagnoser_;
  std::optional<Clock::time_point> last_decided_;
  bool observed_ = false;
  std::optional<Diagnosis> hang_culprit_;
  std::unordered_map<std::string, int> nodes_by_address_;
  std::optional<Clock::time_point> indexed_;  ///< when nodes_by_address_ was built
};

}  // namespace pai::launcher::coordinator
