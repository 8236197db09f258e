// Running work in a child process that is killed at a deadline: GPU work that may hang in the
// driver, and user commands that may hang or flood their output.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "launcher/checks/child_containment.h"

namespace pai::checks {

/// How a child ended and what it wrote.
struct ChildOutcome {
  /// Exited: it returned or exited; Signaled: a signal killed it; TimedOut: killed at the timeout.
  enum Ending { Exited, Signaled, TimedOut };
  Ending ending = Exited;
  int code = 0;                  ///< exit status (Exited) or signal number (Signaled)
  std::string output;            ///< the last `output_cap` bytes the child wrote
  std::size_t output_bytes = 0;  ///< everything it wrote, kept or not
  double seconds = 0;
};

/// Forks; the child gets its own process group, an empty signal mask, default signal
/// dispositions and SIGKILL when the launcher dies (PR_SET_PDEATHSIG: the child itself, not
/// what it started in the background), runs `body(fd)` (fd: the write end of a pipe the
/// parent reads) and _exits with its return value. The parent keeps the last `output_cap`
/// bytes read, hands every chunk to `on_output` (when set) as it arrives, and when the child
/// exits or `timeout` passes kills the child's whole process group with SIGKILL and reaps the
/// child. With `containment` the child first enters a place of its own (a cgroup), and when
/// it ends, however it ends, everything in that place is killed too: also what left its
/// process group. A child that cannot enter it exits 1 with "cannot enter the check's
/// cgroup". Throws std::system_error if the pipe or the fork cannot be made.
ChildOutcome run_in_child(const std::function<int(int fd)>& body, std::chrono::milliseconds timeout,
                          std::size_t output_cap,
                          const std::function<void(std::string_view chunk)>& on_output = {},
                          ChildContainment* containment = nullptr);

/// run_in_child() executing `/bin/sh -c command` with stdin from /dev/null and stdout and stderr
/// both into the captured output. A command that cannot be executed exits with 127.
ChildOutcome run_shell_command(const std::string& command, std::chrono::milliseconds timeout,
                               std::size_t output_cap, ChildContainment* containment = nullptr);

/// "exited with status 3", "killed by signal 9 (Killed)", "timed out after 60s (process group
/// killed)": how `outcome` ended, for summaries.
std::string describe_ending(const ChildOutcome& outcome, std::chrono::milliseconds timeout);

/// The captured output for a report: "[... N bytes omitted ...]\n" first when some was dropped.
std::string output_tail(const ChildOutcome& outcome);

}  // namespace pai::checks
