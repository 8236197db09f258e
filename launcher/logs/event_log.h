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
class EventLog {
 public:
  /// Opens (creating, appending) `path`. Throws std::system_error if it cannot be written.
  explicit EventLog(const std::string& path);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// Appends one event. Throws std::system_error if the write fails.
  void record(std::string_view event, const EventFields& fields);
  /// Where the journal is.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_;
};

/// The line record() writes for `event` at `unix_ms` (milliseconds since the epoch), with
/// its trailing newline.
std::string format_event(std::int64_t unix_ms, std::string_view event, const EventFields& fields);

}  // namespace pai::launcher
