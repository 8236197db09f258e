// What a node agent needs of the commands it runs for `pai-launch run` and `pai-launch rsh`
// (remote_exec.h is the real one). Their output and exits come back to the agent through
// NodeAgent::on_command_output() and NodeAgent::on_command_exit().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libpai/env_contract.h"

namespace pai::launcher {

/// Runs commands on this node, each known by the coordinator's id.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;

  /// Starts `argv` with `env`; with `with_stdin` its stdin is fed by write_stdin(), else it
  /// reads /dev/null. A command that cannot start reports its exit (126/127).
  virtual void start(std::int64_t id, const std::vector<std::string>& argv, const EnvList& env,
                     bool with_stdin) = 0;
  /// Feeds command `id`'s stdin; `eof` closes it.
  virtual void write_stdin(std::int64_t id, std::string_view data, bool eof) = 0;
  /// SIGKILLs command `id` and what it started.
  virtual void kill(std::int64_t id) = 0;
  /// The supervisor reaped `pid`; true when it was one of the commands'.
  virtual bool on_child_exit(int pid, int wait_status) = 0;
  /// Kills every command still running.
  virtual void kill_all() = 0;
};

}  // namespace pai::launcher
