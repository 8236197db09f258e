// `pai-launch run` and `pai-launch rsh` through the coordinator (design §8, docs/protocol.md):
// commands go to launchers as `exec` under fresh ids; their output and exit come back to the
// control client with the node's name; `run` ends with `done`. A client that goes away has
// its commands killed; a node that goes away ends its commands with code 255.
// Internal to launcher/coordinator/.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/protocol.h"

namespace pai::launcher::coordinator {

class ExecRelay {
 public:
  explicit ExecRelay(CoordinatorState& state) : state_(state) {}

  /// `run` from control session `client`: exec on every joined launcher.
  void run(int client, const net::RunRequest& request);
  /// `rsh`: exec on one node with its stdin fed by the client.
  void rsh(int client, const net::RshRequest& request);
  /// `exec-stdin` from an rsh client (dropped once the command ended; a protocol error from a
  /// client that never started one).
  void client_stdin(int client, const net::RshStdin& message);
  /// `exec-output` from the launcher on `session`.
  void output(int session, const net::ExecOutput& message);
  /// `exec-exit` from the launcher on `session`.
  void exit(int session, const net::ExecExit& message);
  /// A session is gone: a client's commands are killed, a node's are over.
  void session_closed(int session, const std::string& why);

 private:
  struct Exec {
    int client = 0;
    int session = 0;  ///< the launcher running it
    std::string node;
    bool rsh = false;
  };

  void finish(std::map<std::int64_t, Exec>::iterator it, int code);
  bool busy(int client) const;
  void reply_error(int client, const std::string& text);

  CoordinatorState& state_;
  std::map<std::int64_t, Exec> execs_;
  /// Clients that started an rsh: their stdin may still arrive after the command ended.
  std::set<int> rsh_clients_;
  std::int64_t next_id_ = 1;
};

}  // namespace pai::launcher::coordinator
