// The output side of one process: its stdout and stderr pipes, relayed to the terminal and
// kept in its per-attempt log file (bounded: bounded_log.h), with the tail kept for
// classification. Reading the pipes is the loop's; writing to the terminal and the log is the
// output writers' (logs/output_writers.h), which never block the loop: a stalled terminal or
// log file system costs shown or logged output (counted, marked), never the job.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/logs/log_relay.h"
#include "launcher/os/event_loop.h"
#include "launcher/os/write_behind.h"
#include "launcher/supervisor/bounded_log.h"

namespace pai::launcher {

/// Where relayed output goes.
struct Terminal {
  int stdout_fd = 1;
  int stderr_fd = 2;
  bool color_stdout = false;
  bool color_stderr = false;
};

/// Owns one process's pipes (read ends non-blocking, 1 MiB when the kernel allows) and its
/// log file. Usage: construct, pass child_stdout()/child_stderr() to the spawn,
/// close_child_ends(), watch(); after the process died drain(); finally close().
class RankOutput {
 public:
  /// Creates the pipes, and has the log writer create `log_path` (truncating; at most about
  /// `max_log_bytes` on disk with its `.1` part, 0 = no bound); `prefix` is "[worker-0/3]",
  /// `who` "worker-0 rank 3". A log that cannot be created (a read-only or full file system,
  /// a folder gone) is not the rank's failure: a warning says so, its output then goes to the
  /// terminal and the tail alone, and log_error() says why. Throws std::runtime_error "cannot
  /// create pipes: <why>", DescriptorsExhausted (os/fd.h) when out of file descriptors.
  RankOutput(std::string log_path, const std::string& prefix, const std::string& who,
             int color_index, const Terminal& terminal, std::uint64_t max_log_bytes = 0);
  ~RankOutput();
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;

  /// The write ends the child gets as fd 1 and fd 2 (until close_child_ends()).
  int child_stdout() const { return out_.write_fd; }
  int child_stderr() const { return err_.write_fd; }
  /// Closes the write ends in the launcher (after the spawn), so EOF can be seen.
  void close_child_ends();
  /// Relays whatever arrives, from `loop`; `on_output` is called after each read of bytes.
  void watch(EventLoop& loop, std::function<void()> on_output);
  /// Reads what is in the pipes now (bounded, in case a grandchild keeps writing), and waits
  /// a little (kLogSettle) for the log writer to write it, so the counts an exit record takes
  /// are final: a stalled log file system costs one such wait, then none until it moves.
  void drain();
  /// Flushes partial lines, stops watching, closes the pipes and the log file.
  void close();
  /// Writes a launcher message into the log file and the tail (not to the terminal).
  void note(const std::string& text);

  const OutputTail& tail() const { return tail_; }
  const std::string& log_path() const { return log_path_; }
  /// "cannot write <path>: <why>" once the log writer found the file cannot be created; ""
  /// when it was, or before the writer got to it.
  std::string log_error() const;
  /// Bytes of the log dropped to keep it within its bound.
  std::uint64_t log_dropped() const { return log_->dropped(); }
  /// Bytes of output dropped because the log file system did not take them in time.
  std::uint64_t log_unwritten() const { return log_stream_->dropped(); }

 private:
  struct Stream {
    int read_fd = -1;
    int write_fd = -1;
    std::unique_ptr<LogRelay> relay;
  };
  // Reads up to `max_reads` chunks, or until one is shorter than the buffer when
  // `until_short_read`; closes the stream at end of file.
  void read_stream(Stream& s, int max_reads, bool until_short_read);
  void close_stream(Stream& s);
  std::string log_path_;
  // Shared with the log writer's thread, which may still write it after this is gone.
  std::shared_ptr<BoundedLog> log_;
  std::shared_ptr<WriteStream> log_stream_;
  OutputTail tail_;
  Stream out_, err_;
  EventLoop* loop_ = nullptr;
  std::function<void()> on_output_;
};

}  // namespace pai::launcher
