// The log relay: a process's output to the terminal, prefixed, and into its tail.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pai::launcher {

/// Longest line relayed to the terminal in one piece; longer runs without a newline are
/// split into lines of this many bytes (the log file keeps them whole).
inline constexpr std::size_t kMaxRelayedLine = 64 * 1024;

/// The last bytes of a process's combined output, for classification and the summary.
class OutputTail {
 public:
  /// Keeps at least the last `capacity` bytes appended.
  explicit OutputTail(std::size_t capacity) : capacity_(capacity) {}
  void append(std::string_view bytes);
  /// The last (at most) `capacity` bytes.
  std::string_view text() const;
  /// The last `count` lines of text(), without a trailing partial newline.
  std::string last_lines(std::size_t count) const;
  void clear() { data_.clear(); }

 private:
  std::size_t capacity_;
  std::string data_;
};

/// Relays one output stream of one process to the terminal (its log file is kept whole by
/// the caller: supervisor/bounded_log.h). Complete lines go to `terminal_fd` each behind
/// `prefix` ("[worker-0/3] ", colored when `color`); a partial line waits for its end, for
/// finish(), or for kMaxRelayedLine bytes. Bytes are never interpreted: binary output passes
/// through. Write errors on the terminal are ignored (a closed terminal must not stop the
/// job); a `terminal_fd` of -1 shows nothing. Each feed() costs one write to the terminal:
/// queued for the terminal writer (output_writers.h) in a launcher, where a terminal that
/// does not read must cost shown output (counted, marked), never the loop's time; or, when
/// `Writes::Direct` (a client command such as `pai-launch logs`, which a stopped pager should
/// hold back), written before feed() returns.
class LogRelay {
 public:
  enum class Writes { Queued, Direct };
  LogRelay(std::string prefix, bool color, int color_index, int terminal_fd, OutputTail* tail,
           Writes writes = Writes::Queued);
  /// Relays bytes read from the stream.
  void feed(std::string_view bytes);
  /// The stream ended: a pending partial line is relayed with a newline added.
  void finish();

 private:
  // Relays `bytes` to the terminal, completing partial_ first.
  void relay_lines(std::string_view bytes);
  // Appends one terminal line to `out`: prefix, head, tail, and a newline unless it has one.
  void add_line(std::string& out, std::string_view head, std::string_view tail = {}) const;
  void show(std::string_view out) const;

  std::string prefix_;
  int terminal_fd_;
  OutputTail* tail_;
  Writes writes_;
  std::string partial_;
};

}  // namespace pai::launcher
