#include "launcher/coordinator/log_subscriptions.h"

#include <vector>

namespace pai::launcher::coordinator {

void LogSubscriptions::subscribe(int client, const net::LogsRequest& request) {
  const int rank = request.rank;
  auto error = [&](const std::string& text) { state_.send(client, net::ErrorReply{text}); };
  if (clients_.count(client) != 0) return error("logs are already streaming on this connection");
  if (state_.phase == Phase::Rendezvous) return error("no instance is running yet (rendezvous)");
  // An MPI job's launcher role has process numbers past the world size; its logs count.
  if (rank >= process_count(state_.placed)) {
    return error("rank " + std::to_string(rank) + " is not in the job (" +
                 std::to_string(process_count(state_.placed)) + " processes)");
  }
  const std::set<int> sessions = sessions_for(rank);
  if (sessions.empty()) {
    return error(rank < 0 ? "no node of the job is connected"
                          : "the node of rank " + std::to_string(rank) + " is not connected");
  }
  Client& c = clients_[client];
  c.rank = rank;
  c.follow = request.follow;
  c.pending = sessions;
  for (int session : sessions) {
    state_.send(session, net::SubscribeLogs{rank, request.tail, request.lines});
    tails_[session].push_back(client);
    subscribed_.insert(session);
  }
}

void LogSubscriptions::log(int session, const net::Log& message) {
  const int rank = message.rank;
  auto tail = tails_.find(session);
  if (tail != tails_.end() && !tail->second.empty()) {
    auto it = clients_.find(tail->second.front());
    if (it != clients_.end() && wants(it->second, rank)) state_.send(it->first, message);
    return;
  }
  for (const auto& [id, c] : clients_) {
    if (c.live.count(session) != 0 && wants(c, rank)) state_.send(id, message);
  }
}

void LogSubscriptions::log_end(int session) {
  auto tail = tails_.find(session);
  if (tail == tails_.end() || tail->second.empty()) return;  // a subscription without tail
  const int client = tail->second.front();
  tail->second.pop_front();
  tail_done(session, client);
  unsubscribe_unneeded();
}

void LogSubscriptions::session_closed(int session) {
  clients_.erase(session);
  auto tail = tails_.find(session);
  if (tail != tails_.end()) {
    const std::deque<int> waiting = tail->second;
    tails_.erase(tail);
    for (int client : waiting) tail_done(session, client);
  }
  for (auto& [id, c] : clients_) c.live.erase(session);
  subscribed_.erase(session);
  unsubscribe_unneeded();
}

void LogSubscriptions::node_took_instance(int node) {
  const int session = state_.nodes.at(static_cast<std::size_t>(node)).session;
  if (session < 0) return;
  for (auto& [id, c] : clients_) {
    if (!c.follow || sessions_for(c.rank).count(session) == 0) continue;
    // No tail: the follower has seen the old node's output; it goes on with the new one's.
    if (subscribed_.insert(session).second) {
      state_.send(session, net::SubscribeLogs{-1, 0, -1});
    }
    c.live.insert(session);
  }
}

std::set<int> LogSubscriptions::sessions_for(int rank) const {
  std::set<int> out;
  for (std::size_t i = 0; i < state_.instances.size(); ++i) {
    const Node& n = state_.nodes[static_cast<std::size_t>(state_.instances[i].node)];
    if (n.session < 0) continue;
    const Placement& p = state_.placed.placements[i];
    const int last = last_rank(state_.placed, p);
    if (rank < 0 || (rank >= p.first_rank && rank <= last)) out.insert(n.session);
  }
  return out;
}

void LogSubscriptions::tail_done(int session, int client) {
  auto it = clients_.find(client);
  if (it == clients_.end()) return;
  Client& c = it->second;
  c.pending.erase(session);
  if (c.follow) {
    if (state_.sessions.count(session) != 0) c.live.insert(session);
    return;
  }
  if (c.pending.empty()) {
    state_.send(client, net::Done{});
    clients_.erase(it);
  }
}

void LogSubscriptions::unsubscribe_unneeded() {
  for (auto it = subscribed_.begin(); it != subscribed_.end();) {
    const int session = *it;
    bool needed = tails_.count(session) != 0 && !tails_.at(session).empty();
    for (const auto& [id, c] : clients_) {
      needed = needed || c.pending.count(session) != 0 || c.live.count(session) != 0;
    }
    if (needed) {
      ++it;
      continue;
    }
    state_.send(session, net::UnsubscribeLogs{});
    tails_.erase(session);
    it = subscribed_.erase(it);
  }
}

}  // namespace pai::launcher::coordinator
