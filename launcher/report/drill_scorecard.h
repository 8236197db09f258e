// The scorecard of a drill (`pai-launch drill`, docs/drill.md) from a job's journals: for each
// fault the coordinator journaled `fault-injected`, how long the job took to notice it (its
// first verdict after), whether that verdict named the rank or node the fault went into, how
// long until the instance was stepping again after a restart, and the steps computed again.
// Pure and streamed: it takes records one at a time, the coordinator's journal first, and
// keeps a few numbers per fault whatever the journals' size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "launcher/logs/journal.h"
#include "libpai/drill_fault.h"

namespace pai::launcher::report {

/// One fault a drill put into the job, as the coordinator journaled it.
struct DrillInjection {
  DrillFault fault = DrillFault::RankKill;
  std::string instance;
  std::string node;
  std::int64_t rank = -1;  ///< global; -1 for node-loss and the link faults
  std::int64_t seconds = 0;
  std::int64_t at_ms = 0;
};

/// How the job handled one fault. Times are from the injection, in milliseconds.
struct FaultScore {
  DrillInjection injection;
  /// The node's own journal has the fault going in (its `fault-injected`): a node that could
  /// not put it in (a rank that just ended, a link fault on loopback) says why on its output.
  bool carried_out = false;
  /// The first verdict on it after the injection: exited, hang, diagnosis, node-lost or
  /// restart, and for disk-full a node's checkpoint-failed of the instance (docs/drill.md says
  /// which counts for which fault); absent when none came before the next fault or the end.
  std::optional<std::int64_t> detect_ms;
  std::string detected_by;  ///< "hang: job-wide, culprit rank 3 (RankNonCommHang)", ...
  /// Whether that verdict named the fault's rank (its instance, where it names no rank) or,
  /// for a fault of the node (node-loss, the link faults), its node.
  bool named_right = false;
  /// A restart followed: the instance's first step after it came `recover_ms` after the
  /// injection (absent while none came), having computed `lost_steps` steps again: the
  /// job's highest step before the restart (any instance's: a lost node cannot journal its
  /// ranks' last steps) minus the step of the job's newest checkpoint
  /// journaled before it (what pai.checkpoint resumes from); without one, minus the instance's
  /// first step after, plus one. Never below 0.
  bool restarted = false;
  std::optional<std::int64_t> recover_ms;
  std::optional<std::int64_t> lost_steps;
  /// The job ended (succeeded, failed, cancelled) before the fault was recovered from.
  std::string job_ended;
};

class DrillScorer {
 public:
  /// The records that follow are of the coordinator's journal, or of a node's. The
  /// coordinator's must come first: its records after a node's journal began are ignored.
  void begin_journal(bool coordinator);
  /// Feeds one record of the current journal, in file order.
  void add(const journal::Entry& entry);
  /// The scores, in injection order.
  std::vector<FaultScore> scores() const;

 private:
  void add_coordinator(const journal::Entry& entry);
  void add_node(const journal::Entry& entry);

  std::vector<FaultScore> scores_;
  // Per injection: when the restart that recovers it started (coordinator's `start` of its
  // instance after the verdict), and the next injection's time (the window's end).
  std::vector<std::optional<std::int64_t>> restart_ms_;
  std::vector<std::int64_t> window_end_ms_;
  std::vector<std::optional<std::int64_t>> before_max_;      // highest step before the restart
  std::vector<std::optional<std::int64_t>> first_after_ms_;  // first step record after it
  std::vector<std::int64_t> first_after_step_;
  std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> checkpoint_;  // (ms, step)
  // Whether the current journal started a process since the fault's restart: its `steps`
  // records are the old attempt's before, the new attempt's after.
  std::vector<bool> started_;
  bool coordinator_ = false;
  bool nodes_began_ = false;
};

/// What a fault's verdict cell says: the verdict ("; no restart" after a bounded fault's that
/// restarted nothing), or "not detected" (and, when the node has no record of it either, that
/// it may not have gone in), and how the job ended before it recovered.
std::string verdict_text(const FaultScore& score);

/// The scorecard as a table for the terminal, one line per fault: fault, target, detect,
/// verdict, named, recover, lost steps.
std::string render_scorecard(const std::vector<FaultScore>& scores);

}  // namespace pai::launcher::report
