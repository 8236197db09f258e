// Small helpers for the file descriptors the launcher owns (pipes of ranks and commands).
#pragma once

namespace pai::launcher {

/// Closes `fd` when open and marks it closed (-1), so a second call is harmless.
void close_fd(int& fd);

/// Makes reads and writes on `fd` return EAGAIN instead of blocking.
void set_nonblocking(int fd);

}  // namespace pai::launcher
