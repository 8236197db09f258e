// What a forked child inherits of its parent's descriptors. A launcher holds the
// coordinator's listening socket (Boost.Asio opens it without close-on-exec), the journals,
// other ranks' pipes and libraries' descriptors: a rank, a sanity check's command or the
// cgroup watchdog that kept one would keep the coordinator's port bound after the job, and
// every later run of the job would fail to listen (issue 38's first finding). Both calls are
// async-signal-safe: they are meant for a forked child.
#pragma once

namespace pai {

/// Marks every descriptor above 2 close-on-exec, so that exec closes them all; they stay
/// open until the exec itself, so a failed exec can still be reported through a pipe. Uses
/// close_range(CLOSE_RANGE_CLOEXEC); on kernels without it, fcntl on every number below
/// RLIMIT_NOFILE.
void close_on_exec_above_stderr();

/// Closes every descriptor above 2 but `keep`, for a child that does not exec.
void close_above_stderr_but(int keep);

}  // namespace pai
