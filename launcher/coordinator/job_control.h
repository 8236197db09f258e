// Job control (design §8, like ACP's jmt): the requests of `pai-launch status|stop|start|kill|
// run|rsh|logs` and the launcher messages that answer them. Internal to launcher/coordinator/.
#pragma once

#include <string>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/exec_relay.h"
#include "launcher/coordinator/job_run.h"
#include "launcher/coordinator/log_subscriptions.h"
#include "launcher/net/message.h"

namespace pai::launcher::coordinator {

class JobControl {
 public:
  explicit JobControl(CoordinatorState& state) : state_(state), exec_(state), logs_(state) {}

  /// A request from control session `client`; `job` is null before the job runs. Throws
  /// net::ProtocolError for an unknown or malformed request.
  void request(int client, const net::MessageReader& message, JobRun* job, Clock::time_point now);
  /// exec-output, exec-exit, log and log-end from the launcher on `session`; false for any
  /// other type.
  bool relay(int session, const net::MessageReader& message);
  /// A session is gone (`why`): its commands, subscriptions and relays end.
  void session_closed(int session, const std::string& why);
  /// `node` took an instance (a spare replaced a node): log followers follow it.
  void node_took_instance(int node) { logs_.node_took_instance(node); }

 private:
  void reply(int client, const ControlReply& answer);

  CoordinatorState& state_;
  ExecRelay exec_;
  LogSubscriptions logs_;
};

}  // namespace pai::launcher::coordinator
