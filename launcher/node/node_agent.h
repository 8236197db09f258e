// A node of a multi-node job: joins the coordinator with this node's check results, runs the
// instance it is assigned (or waits as a standby spare), reports every policy event to the
// coordinator and carries out its decisions, runs commands for `pai-launch run`/`rsh`, streams
// logs for `pai-launch logs`, and stops everything when the coordinator is lost.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "launcher/checks/check_result.h"
#include "launcher/logs/event_log.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/plan.h"

namespace pai::launcher {

struct NodeAgentOptions {
  std::string node;  ///< this node's host name (a host or a spare of the plan)
  std::string coordinator_address;
  int coordinator_port = 0;
  std::string token;
  /// Local address to connect from (the node's own, so the coordinator can check it); empty =
  /// any.
  std::string bind_address;
  std::chrono::milliseconds rendezvous_timeout{std::chrono::minutes(5)};
  std::chrono::milliseconds heartbeat_interval{1000};
  /// This launcher also runs the coordinator (its port is in use by design).
  bool serves_coordinator = false;
  /// Results of the checks run before joining.
  std::vector<checks::CheckResult> checks;
  /// Directory for the hostfile of the final assignment (MPI jobs).
  std::string run_dir;
  SupervisorOptions supervisor;
};

/// Runs this node's part of the job; returns the launcher's exit code (design §6): what the
/// coordinator decided for the job, 1 when the coordinator was lost or could not be reached,
/// 128+N when stopped by signal N.
int run_node_agent(Plan& plan, const NodeAgentOptions& options, EventLog& events);

}  // namespace pai::launcher
