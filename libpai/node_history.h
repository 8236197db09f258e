// A node's check history: one JSON line per `pai-launch check --history DIR` run in
// DIR/<node>.jsonl, and the quarantine decided from it (a node that failed 2 of its last 5
// checks). The decider is pure; the reader tolerates what a crash or a full disk leaves behind
// (a torn last line, a garbage line); the writer appends each record with one O_APPEND write
// and keeps the file bounded.
//
//   {"time":"2024-05-01T10:00:00Z","node":"gpu-001","passed":false,"failed":["burn"],
//    "summary":"burn: GPU 2 (...): bf16 ... below the node median ..."}
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace pai {

/// One check run of one node.
struct HistoryRecord {
  std::string time;  ///< UTC, "2024-05-01T10:00:00Z"
  std::string node;
  bool passed = true;               ///< every check passed or was skipped
  std::vector<std::string> failed;  ///< names of the checks that failed
  std::string summary;  ///< the first failure, "burn: ..."; at most kMaxHistorySummary bytes
  bool operator==(const HistoryRecord&) const = default;
};

/// A summary longer than this is cut, so that a record stays one small write.
inline constexpr std::size_t kMaxHistorySummary = 512;
/// A history file longer than this is rewritten with its last kHistoryKeptRecords records
/// before the next append; readers look at no more than its last kMaxHistoryBytes.
inline constexpr std::size_t kMaxHistoryBytes = 64 * 1024;
/// Records kept when a history file is rewritten.
inline constexpr std::size_t kHistoryKeptRecords = 50;

/// When a node is quarantined: `max_failures` failed runs among its last `window`.
struct QuarantinePolicy {
  int window = 5;
  int max_failures = 2;
};

/// The decision about one node.
struct Quarantine {
  bool quarantined = false;
  int failed = 0;      ///< failed runs among the last `considered`
  int considered = 0;  ///< runs looked at: min(window, records)
  std::string
      reason;  ///< "failed 2 of its last 5 checks (burn at ..., gpu at ...)"; empty when not
};

/// What a history holds, and what was skipped reading it.
struct HistoryRead {
  std::vector<HistoryRecord> records;  ///< in file order, oldest first
  std::vector<std::string> warnings;   ///< "h/gpu-001.jsonl:3: ignored: not a history record (...)"
};

/// Writing a history failed (disk full, no permission); what() names the file and the cause.
class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// DIR/<node>.jsonl.
std::string history_path(const std::string& dir, const std::string& node);

/// `record` as one JSON line with its newline; the summary cut to kMaxHistorySummary bytes.
std::string history_line(const HistoryRecord& record);

/// Parses `text`, the content of `where`, keeping the records of `node`. A last line without
/// its newline is an interrupted write: ignored with a warning. A line that is not a record
/// (garbage, a record of another node) is ignored with a warning naming its line.
HistoryRead parse_history(const std::string& text, const std::string& node,
                          const std::string& where);

/// Decides from `records` (oldest first) as `policy` says.
Quarantine decide_quarantine(const std::vector<HistoryRecord>& records,
                             const QuarantinePolicy& policy = {});

/// Reads the last kMaxHistoryBytes of history_path(dir, node); no file = no records.
HistoryRead read_history(const std::string& dir, const std::string& node);

/// Appends `record` to history_path(dir, record.node), creating `dir` when missing. The line is
/// one write() to a file opened O_APPEND; after a torn last line it starts on a new line; a
/// short write (disk full) is cut back off. A file over kMaxHistoryBytes is first replaced
/// (write to a temporary file, fsync, rename) by its last kHistoryKeptRecords records. Throws
/// HistoryError.
void append_history(const std::string& dir, const HistoryRecord& record);

/// read_history() then decide_quarantine(); the coordinator's question about a node.
/// `warnings`, when given, receives the reader's warnings.
Quarantine is_quarantined(const std::string& dir, const std::string& node,
                          const QuarantinePolicy& policy = {},
                          std::vector<std::string>* warnings = nullptr);

}  // namespace pai
