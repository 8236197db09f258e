// A warm interpreter: a Python process that has imported a role's `preload` modules and waits
// to fork ranks (spec faultTolerance.warmStart, docs/warm-starts.md). A restart then skips
// Python's start-up and the imports, which on a real job are most of the restart.
//
// The interpreter runs launcher/os/warm_interpreter.py, with its channel on fd 3. Per request
// it forks twice: the rank is the grandchild, and the launcher, a subreaper, adopts it when
// the middle process exits; the rank then asks for SIGKILL on the launcher's death, as a
// spawned rank does. So a warm rank is the launcher's child like any other, reaped by the
// supervisor's one waitpid(-1) loop, in its cgroup (passed as a descriptor) and its process
// group, with only stdin, stdout and stderr of the launcher's descriptors.
//
// Whatever is in doubt starts cold (os/process.h), and the launcher says why: the interpreter
// still importing, failed (an import failed, started a thread or opened a GPU), exited, stuck,
// or refused (a preloaded file changed, an interpreter start-up variable such as PYTHONPATH
// differs from the one it started with).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/os/process.h"

namespace pai::launcher {

/// The Python source of the interpreter (launcher/os/warm_interpreter.py, embedded at build).
extern const char kWarmInterpreterSource[];

class WarmInterpreter {
 public:
  enum class State { Importing, Ready, Failed };

  /// Starts `interpreter` (searched in the PATH of `env`) importing `preload`, in
  /// `working_dir` with `env`; its stdout and stderr go to `log_fd`. Throws SpawnError or
  /// DescriptorsExhausted (os/fd.h) when it cannot start.
  WarmInterpreter(const std::string& interpreter, const std::vector<std::string>& preload,
                  std::vector<std::pair<std::string, std::string>> env,
                  const std::string& working_dir, int log_fd);
  /// Ends the interpreter (SIGKILL); the supervisor's loop reaps it.
  ~WarmInterpreter();
  WarmInterpreter(const WarmInterpreter&) = delete;
  WarmInterpreter& operator=(const WarmInterpreter&) = delete;

  int pid() const { return pid_; }
  /// The channel, readable when the interpreter has said something: watch it and call poll().
  int channel() const { return channel_; }
  /// Reads what the interpreter said without blocking, and returns its state.
  State poll();
  State state() const { return state_; }
  /// Why it failed (Failed), else "".
  const std::string& failure() const { return failure_; }
  /// It failed its preload (an import failed, started a thread or opened a GPU): another
  /// interpreter would fail the same way.
  bool preload_failed() const { return preload_failed_; }
  /// How long its preload took, once Ready.
  std::chrono::duration<double> import_time() const { return import_time_; }
  /// The supervisor reaped its pid: it failed, with `status` ("signal 9 (SIGKILL)").
  void exited(const std::string& status);

  /// Forks a rank running `request` (argv a Python command, libpai/python_command.h; its
  /// env, working_dir, process_group, stdin/stdout/stderr and cgroup as os/process.h reads
  /// them) and returns its pid, or nullopt with `why` when it must start cold. Waits at most
  /// `timeout` for the interpreter's answer; one that does not answer is failed and killed.
  std::optional<int> start(const SpawnRequest& request, std::chrono::milliseconds timeout,
                           std::string* why);

 private:
  void fail(const std::string& why);
  void kill_group();
  bool read_line(std::string* line);

  int pid_ = -1;
  int channel_ = -1;
  State state_ = State::Importing;
  bool preload_failed_ = false;
  std::string failure_;
  std::string pending_;  ///< what it said past the last complete line
  /// The variables read when an interpreter starts, as it was started with them: a request
  /// whose values differ starts cold (startup_variables()).
  std::map<std::string, std::string> startup_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::duration<double> import_time_{0};
};

}  // namespace pai::launcher
