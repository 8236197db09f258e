// Commands run on this node for the coordinator: `pai-launch run CMD` on every node and
// `pai-launch rsh` (Open MPI's remote launch agent). Output is carried back in chunks, stdin
// forwarded, and the exit status reported once the process ended and its pipes are drained.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "launcher/net/protocol.h"
#include "launcher/node/command_runner.h"
#include "launcher/os/event_loop.h"
#include "libpai/env_contract.h"

namespace pai::launcher {

/// The CommandRunner of a node launcher, on the supervisor's loop.
class RemoteExec final : public CommandRunner {
 public:
  /// Output of command `id` on `stream`.
  using OnOutput = std::function<void(std::int64_t id, net::Stream stream, std::string_view data)>;
  /// Command `id` ended with a shell-style exit code (128+N for signal N).
  using OnExit = std::function<void(std::int64_t id, int code)>;

  RemoteExec(EventLoop& loop, OnOutput on_output, OnExit on_exit);
  ~RemoteExec() override;
  RemoteExec(const RemoteExec&) = delete;
  RemoteExec& operator=(const RemoteExec&) = delete;

  /// Starts `argv` in its own process group with `env`; with `with_stdin` its stdin is a pipe
  /// fed by write_stdin(), else /dev/null. A command that cannot start reports its exit
  /// (126/127) with the reason on stderr.
  void start(std::int64_t id, const std::vector<std::string>& argv, const EnvList& env,
             bool with_stdin) override;
  /// Feeds stdin (blocking write; small chunks); `eof` closes it.
  void write_stdin(std::int64_t id, std::string_view data, bool eof) override;
  /// SIGKILLs the command's process group.
  void kill(std::int64_t id) override;
  /// The supervisor reaped `pid`; true when it was one of ours.
  bool on_child_exit(int pid, int wait_status) override;
  /// Kills everything still running, including what ended commands left in their groups.
  void kill_all() override;

 private:
  struct Command;
  void read_pipe(std::int64_t id, int& fd, net::Stream stream);
  void maybe_done(std::int64_t id);

  EventLoop& loop_;
  OnOutput on_output_;
  OnExit on_exit_;
  std::map<std::int64_t, std::unique_ptr<Command>> commands_;
  std::vector<int> leftover_groups_;  // process groups of ended commands
};

}  // namespace pai::launcher
