// Job control (design §8, like ACP's jmt): the requests of `pai-launch status|stop|start|kill|
// run|rsh|logs` and the launcher messages that answer them. Internal to launcher/coordinator/.
#pragma once

#include <string>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/exec_relay.h"
#include "launcher/coordinator/job_run.h"
#include "launcher/coordinator/log_subscriptions.h"
#include "launcher/coordinator/node_claims.h"
#include "launcher/net/protocol.h"

namespace pai::launcher::coordinator {

class JobControl {
 public:
  explicit JobControl(CoordinatorState& state)
      : state_(state), exec_(state), logs_(state), claims_(state) {}

  /// A request from control session `client`; `job` is null before the job runs. Throws
  /// net::ProtocolError for a request that cannot be served (stdin without a command).
  void request(int client, const net::ControlRequest& message, JobRun* job, Clock::time_point now);
  /// Output and end of an `exec` from the launcher on `session`, for its client.
  void relay(int session, const net::ExecOutput& message) { exec_.output(session, message); }
  /// The end of an `exec` from the launcher on `session`.
  void relay(int session, const net::ExecExit& message) { exec_.exit(session, message); }
  /// Rank output from the launcher on `session`, for the clients following it.
  void relay(int session, const net::Log& message) { logs_.log(session, message); }
  /// The end of a requested tail from the launcher on `session`.
  void relay(int session, const net::LogEnd&) { logs_.log_end(session); }
  /// A session is gone (`why`): its commands, subscriptions and relays end.
  void session_closed(int session, const std::string& why);
  /// `node` took an instance (a spare replaced a node): log followers follow it.
  void node_took_instance(int node) { logs_.node_took_instance(node); }

 private:
  void reply(int client, const ControlAnswer& answer);

  CoordinatorState& state_;
  ExecRelay exec_;
  LogSubscriptions logs_;
  NodeClaims claims_;
};

}  // namespace pai::launcher::coordinator
