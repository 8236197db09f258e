// `pai-launch logs` through the coordinator (docs/protocol.md): launchers are asked for the
// tail of their ranks' logs (`subscribe-logs`), answer with `log` messages and `log-end`,
// then stream live output until `unsubscribe-logs`, which is sent once no client needs the
// node any more. Tails are answered in order, so each `log-end` closes the oldest request of
// that node; while a tail is being sent, that node's output goes to its requester only (a
// follower already streaming would otherwise see the tail twice). Internal to
// launcher/coordinator/.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/protocol.h"

namespace pai::launcher::coordinator {

class LogSubscriptions {
 public:
  explicit LogSubscriptions(CoordinatorState& state) : state_(state) {}

  /// `logs` from control session `client`.
  void subscribe(int client, const net::LogsRequest& request);
  /// `log` from the launcher on `session`, relayed as is.
  void log(int session, const net::Log& message);
  /// `log-end` {} from the launcher on `session`: the tail it was asked for is complete.
  void log_end(int session);
  /// A session is gone: a client's subscription ends; a node's pending tails are complete.
  void session_closed(int session);
  /// `node` took an instance: followers of its ranks subscribe to it.
  void node_took_instance(int node);

 private:
  struct Client {
    int rank = -1;  ///< -1: every rank
    bool follow = false;
    std::set<int> pending;  ///< sessions whose tail for this client is not complete
    std::set<int> live;     ///< sessions streaming to this client
  };

  /// The launcher sessions holding `rank` (every instance's for -1).
  std::set<int> sessions_for(int rank) const;
  bool wants(const Client& client, int rank) const {
    return client.rank < 0 || client.rank == rank;
  }
  void tail_done(int session, int client);
  void unsubscribe_unneeded();

  CoordinatorState& state_;
  std::map<int, Client> clients_;
  std::map<int, std::deque<int>> tails_;  ///< launcher session -> clients awaiting its log-end
  std::set<int> subscribed_;              ///< launcher sessions sent subscribe-logs
};

}  // namespace pai::launcher::coordinator
