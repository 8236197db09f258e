// A rank's log file with a bound on its size (spec `logs.maxBytes`): a rank that writes
// 50 MB/s must not fill the file system that also holds the checkpoints. When the file would
// pass half the bound it is renamed `<log>.1`, replacing the part before it (whose bytes are
// dropped, and counted), and a fresh `<log>` begins with a marker line that says so. The two
// parts hold the newest output, at most the bound plus one write (the launcher reads a rank's
// pipe 1 MiB at a time). Opened, written and closed on the log writer's thread
// (logs/output_writers.h); dropped() may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace pai::launcher {

class BoundedLog {
 public:
  /// A log at `path`, not created yet (open()). `max_bytes` 0 = no bound.
  BoundedLog(std::string path, std::uint64_t max_bytes);
  ~BoundedLog();
  BoundedLog(const BoundedLog&) = delete;
  BoundedLog& operator=(const BoundedLog&) = delete;

  /// Creates the file (truncating, mode 0640). One that cannot be created leaves the log
  /// closed, open_error() saying why; writes are then dropped.
  void open();
  bool is_open() const { return fd_ >= 0; }
  /// "" when the file was created; else "cannot write <path>: <why>".
  const std::string& open_error() const { return open_error_; }
  /// Appends `bytes`, rotating first when they would take the file past half the bound.
  /// False (errno set) when a write or the rotation failed; nothing is written to a closed
  /// log.
  bool write(std::string_view bytes);
  /// Bytes of output dropped by rotations so far (the parts replaced, less their markers).
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  void close();

 private:
  bool rotate();

  std::string path_;
  std::uint64_t max_bytes_;
  std::string open_error_;
  int fd_ = -1;
  std::uint64_t size_ = 0;      // of the current part on disk
  std::uint64_t output_ = 0;    // the process's bytes in it (not the marker)
  std::uint64_t previous_ = 0;  // the process's bytes in <path>.1, written by this log
  std::atomic<std::uint64_t> dropped_ = 0;
};

}  // namespace pai::launcher
