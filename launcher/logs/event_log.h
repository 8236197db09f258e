// events.jsonl: the journal of every decision the launcher makes (design §6, §11), written
// record by record as journal.h formats them.
#pragma once

#include <cstdint>
#include <string>

#include "launcher/logs/journal_events.h"

namespace pai::launcher {

/// An append-only JSON Lines journal of journal::Event records (docs/journal.md). Each record
/// is one line `{"time":"2026-01-02T03:04:05.678Z","event":"<name>",<fields>...}` handed to
/// the kernel with one write(2) before record() returns, so it survives a crash of the launcher
/// right after, and lines of concurrent writers never interleave. A file it creates (a regular
/// file, empty when opened) begins with the journal::Header record; a file appended to keeps
/// its first record.
///
/// A journal never ends a job: a record that cannot be written (disk full, I/O error, file
/// size limit) is dropped whole — a partly written line is cut off again — the first failure
/// is said once on `warn_fd`, and incomplete() tells the final summary.
class EventLog {
 public:
  /// Opens (creating, appending) `path`, and writes the header record when it is a new (empty)
  /// file. Throws std::system_error if it cannot be opened.
  explicit EventLog(const std::string& path, int warn_fd = 2);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// Appends one event, whole or not at all; false when it could not be written.
  bool record(const journal::Event& event);
  /// Where the journal is.
  const std::string& path() const { return path_; }
  /// Records that could not be written; 0 for a complete journal.
  std::int64_t lost() const { return lost_; }
  bool incomplete() const { return lost_ > 0; }

 private:
  // Cuts off the `written` bytes of a torn record that end at the file's current end.
  void cut_torn_record(std::size_t written);

  std::string path_;
  int fd_;
  int warn_fd_;
  std::int64_t lost_ = 0;
};

}  // namespace pai::launcher
