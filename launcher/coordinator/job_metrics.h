// What the coordinator counts for its Prometheus metrics beyond what its state holds: restarts
// by cause, check runs, diagnosis verdicts, the ranks' step times and the launchers'
// heartbeats. Fed from the records the machine journals and the heartbeats it is sent; read by
// metrics_text(). Internal to launcher/coordinator/.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/coordinator/coordinator_machine.h"
#include "launcher/logs/journal_events.h"
#include "launcher/logs/restart_decisions.h"
#include "launcher/net/protocol.h"

namespace pai::launcher::coordinator {

/// Upper bounds (seconds) of the step-time histogram's buckets; +Inf follows.
inline constexpr std::array<double, 12> kStepBuckets = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                        1,    2.5,   5,    10,  30,   60};
/// Distinct label sets a counter keeps; later ones are counted under class "other" (restarts)
/// or check "other" (check runs), so a job with ever-new error patterns cannot grow the scrape.
inline constexpr std::size_t kMaxLabelSets = 32;

/// One rank's training steps, from the telemetry summaries of its launcher's heartbeats.
struct RankSteps {
  bool reported = false;   ///< a telemetry summary came for this rank
  std::int64_t step = -1;  ///< the last step any record named; -1: none yet
  /// Steps per bucket (not cumulative): buckets[i] counts steps of at most kStepBuckets[i]
  /// seconds and more than the bound before; the last entry counts those above every bound.
  std::array<std::uint64_t, kStepBuckets.size() + 1> buckets{};
  std::uint64_t count = 0;   ///< timed steps
  std::int64_t step_us = 0;  ///< their durations, summed
  std::int64_t comm_us = 0;  ///< time with a collective open, summed over the windows
};

/// A restart's cause as metric labels: `reason` the kind of failure (exit-code, signal,
/// log-pattern, hang, oom, node-lost, diagnosis), `cls` its particulars (the exit code, the
/// signal's name, the pattern, the verdict's class; empty when the kind says it all).
struct RestartCause {
  std::string reason;
  std::string cls;
  auto operator<=>(const RestartCause&) const = default;
};

/// The cause of a failure from its Classification::signature ("exit:1", "signal:9",
/// "pattern:NCCL error", "hang", "diagnosis:RankCommHang"); "unknown" for an empty one.
RestartCause restart_cause(const std::string& signature);

class JobMetrics {
 public:
  using Clock = std::chrono::steady_clock;

  /// An event the coordinator journals (CoordinatorState::record): restarts (by signature),
  /// join and checks (their checks' {name, status}), diagnosis verdicts (class, severity),
  /// gpu-idle verdicts (node) and NIC verdicts (node, problem) are counted; others are
  /// ignored, as are checks of the wrong form.
  void recorded(const journal::Event& event);
  /// The launcher of node `node` (an index of CoordinatorState::nodes) sent a heartbeat.
  void alive(int node, Clock::time_point now);
  /// Its instances' figures, once the job's run accepted the heartbeat (ranks checked).
  void heartbeat(const net::NodeHeartbeat& message);
  /// A new reading of the goodput account replaces the last.
  void goodput(const GoodputReading& reading) { goodput_ = reading; }

  /// Restarts of instances by cause (a job-wide restart of N instances counts N).
  const std::map<RestartCause, std::uint64_t>& restarts() const { return restarts_; }
  std::uint64_t restarts_total() const { return restarts_total_; }
  /// Restarts of the job: decisions, each of one or more instances (logs/restart_decisions.h).
  std::int64_t job_restarts_total() const { return job_restarts_.count(); }
  /// Check runs by (check name, "passed" | "failed" | "skipped").
  const std::map<std::pair<std::string, std::string>, std::uint64_t>& check_runs() const {
    return check_runs_;
  }
  /// Diagnosis verdicts by (class, severity).
  const std::map<std::pair<std::string, std::string>, std::uint64_t>& verdicts() const {
    return verdicts_;
  }
  /// GPU-idle verdicts by node name.
  const std::map<std::string, std::uint64_t>& gpu_idle_verdicts() const {
    return gpu_idle_verdicts_;
  }
  /// NIC verdicts by (node name, problem).
  const std::map<std::pair<std::string, std::string>, std::uint64_t>& nic_verdicts() const {
    return nic_verdicts_;
  }
  /// Steps of every rank, indexed by global rank (ranks beyond the end have reported none).
  const std::vector<RankSteps>& ranks() const { return ranks_; }
  /// Time inside timed steps, summed over every rank.
  std::int64_t step_us_total() const { return step_us_total_; }
  /// The latest progress step of instance `i` (`pai-launch ctl progress`), if one came.
  std::optional<std::int64_t> instance_step(int i) const;
  /// The latest goodput reading, if one came.
  const std::optional<GoodputReading>& goodput() const { return goodput_; }
  /// When node `node`'s launcher last sent a heartbeat, if it ever did.
  std::optional<Clock::time_point> last_heartbeat(int node) const;

 private:
  // Counts each check of a join's or checks' results by name and status.
  void count_checks(const journal::RawJson& checks);

  std::map<RestartCause, std::uint64_t> restarts_;
  std::uint64_t restarts_total_ = 0;
  journal::RestartDecisions job_restarts_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> check_runs_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> verdicts_;
  std::map<std::string, std::uint64_t> gpu_idle_verdicts_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> nic_verdicts_;
  std::vector<RankSteps> ranks_;
  std::int64_t step_us_total_ = 0;
  std::vector<std::optional<std::int64_t>> instance_steps_;
  std::vector<std::optional<Clock::time_point>> heartbeats_;
  std::optional<GoodputReading> goodput_;
};

}  // namespace pai::launcher::coordinator
