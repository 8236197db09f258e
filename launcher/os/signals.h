// Signals consumed in one place: blocked from the start, read from a signalfd.
#pragma once

#include <vector>

namespace pai::launcher {

/// The signals the launcher consumes: SIGCHLD, SIGTERM, SIGINT, SIGHUP.
const std::vector<int>& consumed_signals();

/// Blocks consumed_signals() and ignores SIGPIPE and SIGXFSZ. Call first in main, before any
/// thread starts, so no signal is ever delivered to a handler. Children get the defaults back
/// (process.h).
void block_consumed_signals();

/// The stop signal (SIGTERM, SIGINT or SIGHUP) waiting, blocked, to be read, or 0. Leaves it
/// pending: for code that cannot watch the signalfd yet (connecting to the coordinator) and
/// must still stop at once.
int pending_stop_signal();

/// A signalfd for consumed_signals() (non-blocking, close-on-exec).
class SignalFd {
 public:
  /// Throws std::system_error on failure.
  SignalFd();
  ~SignalFd();
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;

  int fd() const { return fd_; }
  /// The next pending signal, or 0 when none is pending.
  int read_signal();

 private:
  int fd_;
};

}  // namespace pai::launcher
