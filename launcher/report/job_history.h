// What happened to a job, as its log folder's journals tell it: every node's attempts and the
// marks on them (checks, failures, restarts, hangs, diagnosis verdicts, forensics, node
// changes), the step rate over time and the root cause in the journal's own words. Small and
// bounded whatever the journals' size: history_builder.h makes it, report_html.h draws it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "launcher/logs/goodput.h"
#include "launcher/report/drill_scorecard.h"
#include "launcher/report/journal_reader.h"
#include "launcher/report/step_rate.h"

namespace pai::launcher::report {

/// What a mark on a node's timeline stands for.
enum class MarkKind {
  CheckPassed,
  CheckFailed,
  Failure,     ///< a rank exited with an error (or could not start)
  Restart,     ///< the instance restarts (the mark is where the decision was made)
  Hang,        ///< a hang was detected (silence, or ranks that would not exit)
  Diagnosis,   ///< a diagnosis verdict names a rank or node here
  Forensics,   ///< stacks were collected on a hang
  NodeChange,  ///< node lost, replaced by a spare, excluded, disconnected
  Notify,      ///< a message from the job (`ctl notify`)
  Checkpoint,  ///< a checkpoint was saved (or failed)
  Signal,      ///< the launcher received a signal, or a stop / kill of the job
};

/// The number of MarkKind values.
constexpr int kMarkKinds = 11;

/// A short name of `kind` ("restart", "hang", ...), for legends and tables.
const char* to_string(MarkKind kind);

/// One mark. Marks of one kind close in time may be merged into one when a journal holds
/// more than a timeline can show: `count` says how many it stands for.
struct Mark {
  std::int64_t unix_ms = 0;
  MarkKind kind = MarkKind::Notify;
  std::string text;  ///< what the journal says, one line
  std::int64_t count = 1;
};

/// How an attempt ended.
enum class AttemptEnd { Running, Succeeded, Failed, Hung, Stopped, Cancelled, Unknown };

/// A short name of `end` ("succeeded", ...).
const char* to_string(AttemptEnd end);

/// One attempt of an instance on a node: from its start to the last record about it. On a
/// node with more than kMaxAttemptsPerLane attempts, neighbours of one instance are merged:
/// `count` attempts from `number` on, ended as the worst of them.
struct Attempt {
  std::string instance;  ///< "worker-0"
  std::int64_t number = 0;
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  AttemptEnd end = AttemptEnd::Unknown;
  std::int64_t count = 1;
};

/// One row of the timeline: a node of the job (a host, or a spare).
struct NodeLane {
  std::string node;
  std::vector<Attempt> attempts;  ///< in time order
  std::vector<Mark> marks;        ///< in time order
};

/// How the job ended, as its journal says.
enum class JobOutcome { Succeeded, Failed, Cancelled, Unfinished };

/// A short name of `outcome` ("succeeded", "failed", "cancelled", "unfinished").
const char* to_string(JobOutcome outcome);

/// The root cause of the job's end, taken from the journal: the failure's reason, its
/// classification and matched line, the coordinator's diagnosis verdicts and the culprit
/// hang forensics named, the cancel reason. Nothing is re-classified here.
struct RootCause {
  JobOutcome outcome = JobOutcome::Unfinished;
  std::int64_t exit_code = -1;       ///< -1 when the journal does not say
  std::string headline;              ///< one line: what ended the job
  std::vector<std::string> details;  ///< "label: text" lines that support it
  std::string summary;               ///< the launcher's failure summary, several lines
};

/// A notable event (failure, restart, hang, verdict, node change, the end), for the table.
struct KeyEvent {
  std::int64_t unix_ms = 0;
  std::string where;  ///< node or instance; "" for the job
  std::string what;   ///< the event's name
  std::string text;
};

/// A journal the history was read from.
struct JournalInfo {
  std::string path;
  JournalStats stats;
};

/// Everything the report shows.
struct JobHistory {
  std::string job;  ///< the job's name, "" when no record says
  std::string log_dir;
  std::int64_t first_ms = 0;        ///< the earliest record
  std::int64_t last_ms = 0;         ///< the latest record
  std::vector<NodeLane> lanes;      ///< nodes in natural order ("node-2" before "node-10")
  std::int64_t lanes_left_out = 0;  ///< nodes beyond kMaxLanes, counted only
  std::vector<Mark> job_marks;      ///< job-wide: pauses, resumes, the end
  std::vector<StepRateBucket> step_rate;
  std::int64_t step_samples = 0;
  std::int64_t attempts = 0;  ///< attempts of all instances
  std::int64_t restarts = 0;  ///< restarts of instances (a sync restart of 3 is 3)
  std::int64_t job_restarts = 0;  ///< restarts of the job: its decisions (a sync restart of 3 is 1)
  std::int64_t hangs = 0;
  std::int64_t failures = 0;
  std::int64_t verdicts = 0;         ///< diagnosis verdicts
  std::vector<KeyEvent> key_events;  ///< the latest kMaxKeyEvents, in time order
  std::int64_t key_events_left_out = 0;
  RootCause root_cause;
  goodput::Account goodput;  ///< where every rank-second went (docs/goodput.md)
  std::vector<FaultScore> drill;  ///< the drills' faults, scored (docs/drill.md)
  std::vector<JournalInfo> journals;
};

/// Limits that keep a history small for any journal.
constexpr std::size_t kMaxLanes = 512;
constexpr std::size_t kMaxMarksPerLane = 400;
constexpr std::size_t kMaxAttemptsPerLane = 400;
constexpr std::size_t kMaxKeyEvents = 300;
constexpr std::size_t kMaxStepBuckets = 2000;

/// `text` cut to at most `max` bytes on a UTF-8 boundary, with "..." added when cut.
std::string clip_text(std::string text, std::size_t max);

/// Merges `marks` (sorted by time on return) until at most `cap` / 2 remain when there are
/// more than that: marks of one kind in the same time slot, a slot twice as wide each round,
/// become one whose `count` is theirs together (its time and text are the first one's).
/// `slot_ms`, when given, is the slot width to start from (marks merged before are merged at
/// least that coarsely) and receives the width reached.
void compact_marks(std::vector<Mark>& marks, std::size_t cap, std::int64_t* slot_ms = nullptr);

/// Merges neighbouring attempts of the same instance in `attempts` (sorted by start) pairwise
/// until at most `cap` remain (or no neighbours share an instance).
void merge_attempts(std::vector<Attempt>& attempts, std::size_t cap);

/// Natural order of names: "node-2" < "node-10".
bool natural_less(const std::string& a, const std::string& b);

}  // namespace pai::launcher::report
