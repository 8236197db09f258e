// Reading an events.jsonl journal record by record, streamed, through the journal's reader
// (launcher/logs/journal.h): a journal of any size is read with memory for one line, and
// whatever a journal holds — a partial last line of a job still running or killed mid-write,
// lines that are not JSON, bytes that are not UTF-8, lines of megabytes, events of a newer
// launcher, fields of the wrong type — is counted, never thrown on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "launcher/logs/journal.h"

namespace pai::launcher::report {

/// What reading one journal found besides its records.
struct JournalStats {
  std::int64_t records = 0;        ///< records handed on (the header record is not)
  std::int64_t malformed = 0;      ///< complete lines that are no record (not JSON, no time, ...)
  std::int64_t unknown = 0;        ///< records of events this version does not know, skipped
  std::int64_t mistyped = 0;       ///< fields of the wrong type, read as their defaults
  std::int64_t oversized = 0;      ///< lines longer than kMaxRecordBytes, skipped
  bool partial_last_line = false;  ///< the journal ends inside a line (no final newline)
  std::int64_t bytes = 0;          ///< size read
  int format = 1;                  ///< the header record's format; 1 without one
};

/// Lines longer than this are skipped whole (a record is a few hundred bytes; the longest the
/// launcher writes holds a failure summary of a few KiB).
constexpr std::size_t kMaxRecordBytes = 1024 * 1024;

/// A process's exit as the coordinator journals it (`{"code":1,"signal":0}`): "exit code 1",
/// or "signal 9"; `failed` (when given) says whether it is anything but exit code 0.
std::string exit_status_text(const journal::ExitStatus& status, bool* failed = nullptr);

/// Streams the journal at `path`, calling `on_record` for each record in file order (not for
/// the header record, which sets JournalStats::format). Throws std::system_error naming
/// `path` when it cannot be opened or read.
JournalStats read_journal(const std::string& path,
                          const std::function<void(const journal::Entry&)>& on_record);

}  // namespace pai::launcher::report
