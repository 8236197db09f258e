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

/// Raises the soft RLIMIT_NOFILE to the hard limit, so a launcher of many ranks (two pipes
/// and a log file each) does not run out; returns the soft limit now in force. Processes the
/// launcher starts get the soft limit it had before (restore_descriptor_limit()).
unsigned long raise_descriptor_limit();

/// In a forked child before exec: the soft RLIMIT_NOFILE from before raise_descriptor_limit().
/// Async-signal-safe; does nothing when the limit was never raised.
void restore_descriptor_limit();

}  // namespace pai::launcher
