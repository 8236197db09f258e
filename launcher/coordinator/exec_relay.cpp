#include "launcher/coordinator/exec_relay.h"

namespace pai::launcher::coordinator {

void ExecRelay::run(int client, const net::RunRequest& request) {
  const std::vector<std::string>& argv = request.argv;
  if (argv.empty()) return reply_error(client, "run: the command is empty");
  if (busy(client)) return reply_error(client, "a command is already running on this connection");
  std::vector<std::string> nodes;
  for (const auto& [id, session] : state_.sessions) {
    if (session.node < 0) continue;
    const std::string& node = state_.nodes[static_cast<std::size_t>(session.node)].name;
    const std::int64_t exec = next_id_++;
    execs_[exec] = Exec{client, id, node, false};
    nodes.push_back(node);
    state_.send(id, net::Exec{exec, argv, false});
  }
  if (nodes.empty()) return reply_error(client, "no launcher is connected");
  const std::string& who = state_.sessions.at(client).peer.node;
  state_.record(journal::Run{.argv = argv, .nodes = nodes, .by = who},
                "running " + argv.front() + " on " + std::to_string(nodes.size()) + " node" +
                    (nodes.size() == 1 ? "" : "s") + " (requested by " + who + ")");
}

void ExecRelay::rsh(int client, const net::RshRequest& request) {
  const std::string& node = request.node;
  const std::vector<std::string>& argv = request.argv;
  if (argv.empty()) return reply_error(client, "rsh: the command is empty");
  if (busy(client)) return reply_error(client, "a command is already running on this connection");
  const int n = state_.find_node(node);
  if (n < 0) return reply_error(client, "no node named \"" + node + "\" in the job");
  const int session = state_.nodes[static_cast<std::size_t>(n)].session;
  if (session < 0) return reply_error(client, "node " + node + " is not connected");
  const std::int64_t exec = next_id_++;
  execs_[exec] = Exec{client, session, node, true};
  rsh_clients_.insert(client);
  state_.send(session, net::Exec{exec, argv, true});
  const std::string& who = state_.sessions.at(client).peer.node;
  state_.record(journal::Rsh{.node = node, .argv = argv, .by = who});
}

void ExecRelay::client_stdin(int client, const net::RshStdin& message) {
  for (const auto& [id, exec] : execs_) {
    if (exec.client != client || !exec.rsh) continue;
    state_.send(exec.session, net::ExecStdin{id, message.data, message.eof});
    return;
  }
  if (rsh_clients_.count(client) == 0) net::fail(message, "data", "no remote command was started");
}

void ExecRelay::output(int session, const net::ExecOutput& message) {
  auto it = execs_.find(message.id);
  // Output of a command whose client left (it is being killed) goes nowhere.
  if (it == execs_.end() || it->second.session != session) return;
  state_.send(it->second.client,
              net::NodeExecOutput{it->second.node, message.stream, message.data});
}

void ExecRelay::exit(int session, const net::ExecExit& message) {
  const int code = message.code;
  auto it = execs_.find(message.id);
  if (it == execs_.end() || it->second.session != session) return;
  finish(it, code);
}

void ExecRelay::session_closed(int session, const std::string& why) {
  rsh_clients_.erase(session);
  for (auto it = execs_.begin(); it != execs_.end();) {
    if (it->second.client == session) {
      if (state_.sessions.count(it->second.session) != 0) {
        state_.send(it->second.session, net::ExecKill{it->first});
      }
      it = execs_.erase(it);
    } else if (it->second.session == session) {
      const std::string text = "pai-launch: node " + it->second.node + " lost: " + why + "\n";
      state_.send(it->second.client,
                  net::NodeExecOutput{it->second.node, net::Stream::Stderr, text});
      auto next = std::next(it);
      finish(it, 255);
      it = next;
    } else {
      ++it;
    }
  }
}

void ExecRelay::finish(std::map<std::int64_t, Exec>::iterator it, int code) {
  const Exec exec = it->second;
  execs_.erase(it);
  state_.send(exec.client, net::NodeExecExit{exec.node, code});
  if (!exec.rsh && !busy(exec.client)) state_.send(exec.client, net::Done{});
}

bool ExecRelay::busy(int client) const {
  for (const auto& [id, exec] : execs_) {
    if (exec.client == client) return true;
  }
  return false;
}

void ExecRelay::reply_error(int client, const std::string& text) {
  state_.send(client, net::ErrorReply{text});
}

}  // namespace pai::launcher::coordinator
