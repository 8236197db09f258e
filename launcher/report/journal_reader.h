// Reading an events.jsonl journal (launcher/logs/event_log.h) record by record, streamed: a
// journal of any size is read with memory for one line, and whatever a journal holds — a
// partial last line of a job still running or killed mid-write, lines that are not JSON,
// bytes that are not UTF-8, lines of megabytes — is counted, never thrown on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/logs/event_log.h"

namespace pai::launcher::report {

/// Named fields, in their order. Fields that are objects or arrays (the coordinator's
/// `status`, `classification`, `checks`) are held as their JSON text, as the coordinator's own
/// journal writes them; null is "".
struct RecordFields {
  EventFields fields;

  /// The field `name` as text: a string as it is, a number or boolean written out; nullopt
  /// when there is no such field.
  std::optional<std::string> text(std::string_view name) const;
  /// The field `name` when it is an integer (or a number with an integral value).
  std::optional<std::int64_t> integer(std::string_view name) const;
  /// The field `name` when it is a boolean.
  std::optional<bool> flag(std::string_view name) const;
  /// The field `name` read as a JSON object: its members (empty when it is none).
  RecordFields object(std::string_view name) const;
  /// The field `name` read as a JSON array: its members that are objects (empty when none).
  std::vector<RecordFields> objects(std::string_view name) const;
  /// The field `name` read as a JSON array: its members that are strings (empty when none).
  std::vector<std::string> strings(std::string_view name) const;
};

/// One record of a journal: its time, its event name and its other fields.
struct JournalRecord : RecordFields {
  std::int64_t unix_ms = 0;  ///< `time`, milliseconds since the epoch (UTC)
  std::string event;         ///< `event`
};

/// What reading one journal found besides its records.
struct JournalStats {
  std::int64_t records = 0;        ///< records handed on
  std::int64_t malformed = 0;      ///< complete lines that are no record (not JSON, no time, ...)
  std::int64_t oversized = 0;      ///< lines longer than kMaxRecordBytes, skipped
  bool partial_last_line = false;  ///< the journal ends inside a line (no final newline)
  std::int64_t bytes = 0;          ///< size read
};

/// Lines longer than this are skipped whole (a record is a few hundred bytes; the longest the
/// launcher writes holds a failure summary of a few KiB).
constexpr std::size_t kMaxRecordBytes = 1024 * 1024;

/// A process's exit as the coordinator journals it (`{"code":1,"signal":0}`): "exit code 1",
/// or "signal 9"; `failed` (when given) says whether it is anything but exit code 0.
std::string exit_status_text(const RecordFields& status, bool* failed = nullptr);

/// Streams the journal at `path`, calling `on_record` for each record in file order. Throws
/// std::system_error naming `path` when it cannot be opened or read.
JournalStats read_journal(const std::string& path,
                          const std::function<void(const JournalRecord&)>& on_record);

/// Parses one journal line (without its newline) into `out`; false when it is no record.
/// Bytes that are not UTF-8 become U+FFFD first.
bool parse_journal_line(std::string_view line, JournalRecord& out);

/// "2026-01-02T03:04:05.678Z" (as the journal writes `time`) as milliseconds since the epoch.
std::optional<std::int64_t> parse_journal_time(std::string_view text);

}  // namespace pai::launcher::report
