// JobHistoryBuilder's state (history_builder.h): what the journals read so far say of the
// job, and one handler per journal event that means something for its history
// (history_events.cpp). Internal to launcher/report/.
#pragma once

#include <climits>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "launcher/logs/restart_decisions.h"
#include "launcher/report/history_builder.h"
#include "launcher/report/root_cause.h"
#include "launcher/report/step_rate.h"

namespace pai::launcher::report {

inline constexpr std::size_t kMaxText = 600;           ///< a mark's or event's text
inline constexpr std::size_t kMaxSummary = 16 * 1024;  ///< a failure summary
inline constexpr std::size_t kMaxVerdicts = 5;  ///< diagnosis verdicts quoted in the root cause
inline constexpr std::size_t kMaxReasons = 64;  ///< distinct restart reasons tallied

/// `text` clipped to `max` bytes (clip_text).
std::string clip(std::string text, std::size_t max = kMaxText);

/// A key's marks, merged (compact_marks) whenever there are more than kMaxMarksPerLane; each
/// merge starts from the slot width the last one reached.
struct MarkList {
  std::vector<Mark> marks;
  std::int64_t slot_ms = 1000;
  void add(Mark m);
};

/// An instance's attempt as the journals tell it.
struct AttemptBuild {
  std::string node;
  bool node_from_coordinator = false;
  std::int64_t start_ms = LLONG_MAX;
  std::int64_t last_ms = LLONG_MIN;
  bool exited = false;  ///< a process of it exited (or could not start): it ended by last_ms
  AttemptEnd end = AttemptEnd::Unknown;
};

/// How a journal ended the job.
struct End {
  std::int64_t unix_ms = 0;  ///< when the journal says the job ended
  JobEnd event;
  int rank = 0;  ///< job-* beats finish
};

struct JobHistoryBuilder::Impl {
  // The journal being read.
  bool coordinator = false;
  std::string folder;
  std::string journal_node;                     // its launcher's node (launcher-started)
  std::map<std::string, std::int64_t> current;  // instance -> its attempt in this journal

  bool has_coordinator = false;
  std::string job;
  std::int64_t first_ms = LLONG_MAX;
  std::int64_t last_ms = LLONG_MIN;
  std::map<std::pair<std::string, std::int64_t>, AttemptBuild> attempts;
  std::map<std::string, MarkList> instance_marks;  // placed on a node by time at the end
  std::map<std::string, MarkList> node_marks;
  MarkList job_marks;
  std::map<std::string, std::string> node_hint;  // instance -> node, when no attempt says
  std::set<std::string> nodes;
  StepRate steps{kMaxStepBuckets};
  std::int64_t restarts = 0, hangs = 0, failures = 0, verdicts = 0;
  journal::RestartDecisions restart_decisions;  // restarts of the job
  std::multimap<std::int64_t, KeyEvent> key_events;
  std::int64_t key_events_left_out = 0;
  std::optional<End> coordinator_end, instance_end;
  std::deque<std::string> verdict_texts;
  std::string stack_culprit;
  std::string failure_summary;
  std::map<std::string, std::int64_t> restart_reasons;
  std::vector<JournalInfo> journals;

  // ---- The history so far (history_builder.cpp) ----
  void key_event(std::int64_t ms, std::string where, std::string what, std::string text);
  /// A mark about `instance` (or, without one, the journal's node).
  void instance_mark(const std::string& instance, Mark m);
  void node_mark(const std::string& node, Mark m);
  AttemptBuild* current_attempt(const std::string& instance);
  void set_end(const std::string& instance, AttemptEnd end);
  /// With the coordinator's journal, it alone tells the instances' starts, failures, restarts
  /// and hangs; the instances' journals say the same a second time.
  bool decides() const { return coordinator || !has_coordinator; }
  JobHistory finish(const std::string& log_dir);
  RootCause root_cause() const;
  std::string lane_of(const std::string& instance, std::int64_t ms) const;

  // ---- What each event means (history_events.cpp) ----
  void add(const journal::Entry& entry);
  // Every event but these two is tracked first (its instance's attempt, its step) and then
  // handled: the starts of the journal's launcher and of an attempt set what tracking needs.
  void on(std::int64_t ms, const journal::LauncherStarted& e);
  void on(std::int64_t ms, const journal::Start& e);
  template <class E>
  void on(std::int64_t ms, const E& e);
  template <class E>
  void track(std::int64_t ms, const E& e);

  void handle(std::int64_t ms, const journal::Check& e);
  void handle(std::int64_t ms, const journal::Join& e);
  void handle(std::int64_t ms, const journal::Checks& e);
  void handle(std::int64_t ms, const journal::Exit& e);
  void handle(std::int64_t ms, const journal::Exited& e);
  void handle(std::int64_t ms, const journal::SpawnFailed& e);
  void handle(std::int64_t ms, const journal::Failure& e);
  void handle(std::int64_t ms, const journal::Restart& e);
  void handle(std::int64_t ms, const journal::Hang& e);
  void handle(std::int64_t ms, const journal::Diagnosis& e);
  void handle(std::int64_t ms, const journal::Forensics& e);
  void handle(std::int64_t ms, const journal::Nic& e);
  void handle(std::int64_t ms, const journal::NodeReplaced& e);
  void handle(std::int64_t ms, const journal::NodeLost& e);
  void handle(std::int64_t ms, const journal::NodeExcluded& e);
  void handle(std::int64_t ms, const journal::Disconnected& e);
  void handle(std::int64_t ms, const journal::SpareLost& e);
  void handle(std::int64_t ms, const journal::WaitingForSpare& e);
  void handle(std::int64_t ms, const journal::Notify& e);
  void handle(std::int64_t ms, const journal::Checkpoint& e);
  void handle(std::int64_t ms, const journal::CheckpointFailed& e);
  void handle(std::int64_t ms, const journal::Signal& e);
  void handle(std::int64_t ms, const journal::Kill& e);
  void handle(std::int64_t ms, const journal::DiagnosisRestart& e);
  void handle(std::int64_t ms, const journal::Paused& e);
  void handle(std::int64_t ms, const journal::Resumed& e);
  void handle(std::int64_t ms, const journal::Assignment& e);
  void handle(std::int64_t ms, const journal::Assigned& e);
  void handle(std::int64_t ms, const journal::JobSucceeded& e);
  void handle(std::int64_t ms, const journal::JobFailed& e);
  void handle(std::int64_t ms, const journal::JobCancelled& e);
  void handle(std::int64_t ms, const journal::Finish& e);
  /// Events that mean nothing for the history.
  void handle(std::int64_t, const auto&) {}

  // Handlers' common parts.
  void failure(std::int64_t ms, const std::string& instance, const std::string& text);
  void checks_mark(std::int64_t ms, const std::string& node, const journal::RawJson& checks,
                   bool ready);
  template <class E>
  void node_change(std::int64_t ms, const E& e);
  void job_control(std::int64_t ms, const char* what, const std::string& by);
  void end_candidate(std::int64_t ms, JobEnd end, int rank);
};

}  // namespace pai::launcher::report
