// Small helpers for the file descriptors the launcher owns (pipes of ranks and commands).
#pragma once

#include <stdexcept>
#include <string>

namespace pai::launcher {

/// The process or the system ran out of file descriptors (EMFILE, ENFILE): the launcher
/// cannot start more processes, which is not the processes' failure.
class DescriptorsExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws for a failed call that set errno: DescriptorsExhausted for EMFILE or ENFILE (its
/// message names the RLIMIT_NOFILE in force), else std::runtime_error; both "<what>: <error>".
[[noreturn]] void throw_fd_error(const std::string& what);

/// Closes `fd` when open and marks it closed (-1), so a second call is harmless.
void close_fd(int& fd);

/// Makes reads and writes on `fd` return EAGAIN instead of blocking.
void set_nonblocking(int fd);

/// Marks every descriptor above 2 close-on-exec, so that exec closes them all: nothing the
/// launcher holds (the coordinator's sockets, which Boost.Asio opens without close-on-exec,
/// other ranks' pipes, libraries' descriptors) outlives it in a rank. Async-signal-safe: meant
/// for a forked child right before exec. Descriptors stay open until the exec itself, so a
/// failed exec can still be reported through a pipe. Uses close_range(CLOSE_RANGE_CLOEXEC);
/// on kernels without it, fcntl on every number below RLIMIT_NOFILE.
void close_on_exec_above_stderr();

/// Raises the soft RLIMIT_NOFILE to the hard limit, so a launcher of many ranks (two pipes
/// and a log file each) does not run out; returns the soft limit now in force. Processes the
/// launcher starts get the soft limit it had before (restore_descriptor_limit()).
unsigned long raise_descriptor_limit();

/// In a forked child before exec: the soft RLIMIT_NOFILE from before raise_descriptor_limit().
/// Async-signal-safe; does nothing when the limit was never raised.
void restore_descriptor_limit();

}  // namespace pai::launcher
