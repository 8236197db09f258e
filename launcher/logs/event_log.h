// events.jsonl: the journal of every decision the launcher makes (design §6, §11), written
// record by record as journal.h formats them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "launcher/logs/journal_events.h"
#include "launcher/os/write_behind.h"

namespace pai::launcher {

/// An append-only JSON Lines journal of journal::Event records (docs/journal.md). Each record
/// is one line `{"time":"2026-01-02T03:04:05.678Z","event":"<name>",<fields>...}`, written by
/// the log writer's thread (output_writers.h) with one write(2), so lines of concurrent
/// writers never interleave and a log file system that stalls never stops the caller: the
/// record waits (up to kJournalQueueBytes of them) and is written as soon as the file system
/// takes it. A launcher killed loses only the records still waiting: normally none, the writer
/// being microseconds behind. A file it creates (a regular file, empty when opened) begins with
/// the journal::Header record; a file appended to keeps its first record.
///
/// A journal never ends a job: a record that cannot be written (disk full, I/O error, file
/// size limit, or the bound while the file system stalls) is dropped whole — a partly written
/// line is cut off again — the first failure is said once on `warn_fd`, and incomplete() tells
/// the final summary.
class EventLog {
 public:
  /// Opens (creating, appending) `path`, and writes the header record when it is a new (empty)
  /// file. Throws std::system_error if it cannot be opened.
  explicit EventLog(const std::string& path, int warn_fd = 2);
  /// Waits until what was recorded is written, and closes the file.
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// Queues one event, to be written whole or not at all; false when it was dropped at once
  /// (the bound of a stalled file system).
  bool record(const journal::Event& event);
  /// Waits until what was recorded is written (or found unwritable).
  void flush();
  /// Where the journal is.
  const std::string& path() const { return path_; }
  /// Records that could not be written so far; 0 for a complete journal (flush() first).
  std::int64_t lost() const { return file_->lost.load(); }
  bool incomplete() const { return lost() > 0; }

 private:
  // The file and its count, shared with the log writer's thread.
  struct File {
    std::string path;
    int fd = -1;
    int warn_fd = 2;
    std::atomic<std::int64_t> lost = 0;
    // Writes one record whole, or counts it lost (and cuts off a torn part).
    bool write(std::string_view line);
    void count_lost(const std::string& why);
    // Cuts off the `written` bytes of a torn record that end at the file's current end.
    void cut_torn_record(std::size_t written);
  };

  std::string path_;
  std::shared_ptr<File> file_;
  std::shared_ptr<WriteStream> stream_;
};

}  // namespace pai::launcher
