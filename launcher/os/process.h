// The process layer: the one place that starts processes (through Boost.Process).
//
// It only starts them. Waiting is the supervisor's single waitpid(-1) loop, so nothing here
// ever reaps a child.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pai::launcher {

/// What to start.
struct SpawnRequest {
  /// argv[0] is searched in the PATH of `env` (else the launcher's) unless it holds a '/'.
  std::vector<std::string> argv;
  /// The complete environment of the child, in order; later duplicates win.
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;  ///< empty = the launcher's working directory
  int process_group = 0;    ///< join this group; 0 = lead a new one
  int stdout_fd = -1;       ///< becomes the child's fd 1; -1 = inherit
  int stderr_fd = -1;       ///< becomes the child's fd 2; -1 = inherit
  int stdin_fd = -1;        ///< becomes the child's fd 0; -1 = /dev/null
  int cgroup_procs_fd = -1;  ///< the child joins this cgroup first (os/cgroup.h); -1 = stays
  /// Becomes the child's fd 3, the one descriptor it gets past stderr (a warm interpreter's
  /// channel to the launcher, os/warm_interpreter.h); -1 = none.
  int channel_fd = -1;
  /// Leads a session of its own (setsid) and is not killed when the launcher dies: a process
  /// meant to outlive it (the ended coordinator, coordinator/ended_coordinator.h).
  bool detach = false;
};

/// The program could not be started. `exit_code` is the shell's code for it: 127 not found,
/// 126 found but not executable (or another exec failure). what() is a complete message.
class SpawnError : public std::runtime_error {
 public:
  SpawnError(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  /// 126 or 127.
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

/// Starts a process and returns its pid. Between fork and exec the child joins its process
/// group (or, detached, starts a session), restores the default disposition and an empty mask for
/// every signal, asks for SIGKILL when the launcher dies (PR_SET_PDEATHSIG; not when detached),
/// reads stdin from `stdin_fd` (default /dev/null) and changes to `working_dir`. The launcher's own
/// descriptors are close-on-exec, so none leaks. Throws SpawnError when the program cannot be
/// started, DescriptorsExhausted (os/fd.h) when the launcher is out of file descriptors.
int spawn_process(const SpawnRequest& request);

/// The absolute path `name` resolves to in `path_list` (a colon-separated PATH), or "" when
/// no executable file is found. A name holding '/' is returned as is.
std::string search_path(const std::string& name, const std::string& path_list);

}  // namespace pai::launcher
