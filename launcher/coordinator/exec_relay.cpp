#include "launcher/coordinator/exec_relay.h"

#include <limits>

namespace pai::launcher::coordinator {

void ExecRelay::run(int client, const net::MessageReader& request) {
  const std::vector<std::string> argv = request.strings("argv");
  if (argv.empty()) return reply_error(client, "run: the command is empty");
  if (busy(client)) return reply_error(client, "a command is already running on this connection");
  std::vector<std::string> nodes;
  for (const auto& [id, session] : state_.sessions) {
    if (session.node < 0) continue;
    const std::string& node = state_.nodes[static_cast<std::size_t>(session.node)].name;
    const std::int64_t exec = next_id_++;
    execs_[exec] = Exec{client, id, node, false};
    nodes.push_back(node);
    state_.send(id, Json{{"type", "exec"}, {"id", exec}, {"argv", argv}, {"stdin", false}});
  }
  if (nodes.empty()) return reply_error(client, "no launcher is connected");
  const std::string& who = state_.sessions.at(client).peer.node;
  state_.record("run", Json{{"argv", argv}, {"nodes", nodes}, {"by", who}},
                "running " + argv.front() + " on " + std::to_string(nodes.size()) + " node" +
                    (nodes.size() == 1 ? "" : "s") + " (requested by " + who + ")");
}

void ExecRelay::rsh(int client, const net::MessageReader& request) {
  const std::string node = request.string("node");
  const std::vector<std::string> argv = request.strings("argv");
  if (argv.empty()) return reply_error(client, "rsh: the command is empty");
  if (busy(client)) return reply_error(client, "a command is already running on this connection");
  const int n = state_.find_node(node);
  if (n < 0) return reply_error(client, "no node named \"" + node + "\" in the job");
  const int session = state_.nodes[static_cast<std::size_t>(n)].session;
  if (session < 0) return reply_error(client, "node " + node + " is not connected");
  const std::int64_t exec = next_id_++;
  execs_[exec] = Exec{client, session, node, true};
  rsh_clients_.insert(client);
  state_.send(session, Json{{"type", "exec"}, {"id", exec}, {"argv", argv}, {"stdin", true}});
  const std::string& who = state_.sessions.at(client).peer.node;
  state_.record("rsh", Json{{"node", node}, {"argv", argv}, {"by", who}});
}

void ExecRelay::client_stdin(int client, const net::MessageReader& message) {
  message.bytes("data");  // validated here, relayed as received
  const bool eof = message.boolean("eof");
  for (const auto& [id, exec] : execs_) {
    if (exec.client != client || !exec.rsh) continue;
    state_.send(
        exec.session,
        Json{{"type", "exec-stdin"}, {"id", id}, {"data", message.string("data")}, {"eof", eof}});
    return;
  }
  if (rsh_clients_.count(client) == 0) message.fail("data", "no remote command was started");
}

void ExecRelay::output(int session, const net::MessageReader& message) {
  const std::int64_t id = message.int64("id");
  const std::string stream = message.string("stream");
  if (stream != "stdout" && stream != "stderr") {
    message.fail("stream", "expected \"stdout\" or \"stderr\", got \"" + stream + "\"");
  }
  message.bytes("data");
  auto it = execs_.find(id);
  // Output of a command whose client left (it is being killed) goes nowhere.
  if (it == execs_.end() || it->second.session != session) return;
  state_.send(it->second.client, Json{{"type", "exec-output"},
                                      {"node", it->second.node},
                                      {"stream", stream},
                                      {"data", message.string("data")}});
}

void ExecRelay::exit(int session, const net::MessageReader& message) {
  const std::int64_t id = message.int64("id");
  const int code =
      message.integer("code", std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  auto it = execs_.find(id);
  if (it == execs_.end() || it->second.session != session) return;
  finish(it, code);
}

void ExecRelay::session_closed(int session, const std::string& why) {
  rsh_clients_.erase(session);
  for (auto it = execs_.begin(); it != execs_.end();) {
    if (it->second.client == session) {
      if (state_.sessions.count(it->second.session) != 0) {
        state_.send(it->second.session, Json{{"type", "exec-kill"}, {"id", it->first}});
      }
      it = execs_.erase(it);
    } else if (it->second.session == session) {
      const std::string text = "pai-launch: node " + it->second.node + " lost: " + why + "\n";
      state_.send(it->second.client, Json{{"type", "exec-output"},
                                          {"node", it->second.node},
                                          {"stream", "stderr"},
                                          {"data", net::base64_encode(text)}});
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
  state_.send(exec.client, Json{{"type", "exec-exit"}, {"node", exec.node}, {"code", code}});
  if (!exec.rsh && !busy(exec.client)) state_.send(exec.client, Json{{"type", "done"}});
}

bool ExecRelay::busy(int client) const {
  for (const auto& [id, exec] : execs_) {
    if (exec.client == client) return true;
  }
  return false;
}

void ExecRelay::reply_error(int client, const std::string& text) {
  state_.send(client, Json{{"type", "error"}, {"text", text}});
}

}  // namespace pai::launcher::coordinator
