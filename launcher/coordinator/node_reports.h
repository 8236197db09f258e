// What node launchers report about their instances (docs/protocol.md: exited, hang,
// heartbeat, failure), read strictly into typed values: a missing or mistyped field throws
// net::ProtocolError naming the message and the field. Internal to launcher/coordinator/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/message.h"
#include "launcher/policy/restart_policy.h"

namespace pai::launcher::coordinator {

/// The "instance" field: one of the job's `instances`.
int read_instance(const net::MessageReader& message, int instances);

/// `exited`: the policy's event, and whether the launcher was stopping the process.
struct ExitReport {
  ProcessExited event;
  bool stopping = false;
};
ExitReport read_exited(const net::MessageReader& message, int instances);

/// `hang`: ranks stuck (exiting: in exitInterval) for `seconds`.
struct HangReport {
  int instance = 0;
  bool exiting = false;
  std::int64_t seconds = 0;
};
HangReport read_hang(const net::MessageReader& message, int instances);

/// One entry of `heartbeat`, received at `now`.
struct HeartbeatEntry {
  int instance = 0;
  InstanceHeartbeat heartbeat;
};
std::vector<HeartbeatEntry> read_heartbeat(const net::MessageReader& message, int instances,
                                           Clock::time_point now);

/// `failure`: the root-cause summary of a failed rank.
struct FailureReport {
  int instance = 0;
  int rank = 0;
  std::string summary;
};
FailureReport read_failure(const net::MessageReader& message, int instances);

}  // namespace pai::launcher::coordinator
