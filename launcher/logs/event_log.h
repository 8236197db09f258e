// events.jsonl: the journal of every decision the launcher makes (design §6, §11).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pai::launcher {

/// One field of an event: a string, an integer, a number or a boolean.
using EventValue = std::variant<std::string, std::int64_t, double, bool>;
/// The fields of an event, in the order they are written.
using EventFields = std::vector<std::pair<std::string, EventValue>>;

/// An append-only JSON Lines journal. Each record is one line
/// `{"time":"2026-01-02T03:04:05.678Z","event":"<name>",<fields>...}` handed to the kernel
/// with one write(2) before record() returns, so it survives a crash of the launcher right
/// after, and lines of concurrent writers never interleave.
///
/// A journal never ends a job: a record that cannot be written (disk full, I/O error, file
/// size limit) is dropped whole — a partly written line is cut off again — the first failure
/// is said once on `warn_fd`, and incomplete() tells the final summary.
class EventLog {
 public:
  /// Opens (creating, appending) `path`. Throws std::system_error if it cannot be opened.
  explicit EventLog(const std::string& path, int warn_fd = 2);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// Appends one event, whole or not at all; false when it could not be written.
  bool record(std::string_view event, const EventFields& fields);
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

/// The line record() writes for `event` at `unix_ms` (milliseconds since the epoch), with
/// its trailing newline.
std::string format_event(std::int64_t unix_ms, std::string_view event, const EventFields& fields);

}  // namespace pai::launcher
