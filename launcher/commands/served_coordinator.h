// The job's coordinator, served by `pai-launch run` on the coordinator's host beside that
// node's own agent: its records go to the coordinator's journal and its lines to the terminal.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_server.h"
#include "launcher/logs/event_log.h"
#include "launcher/report/goodput_watch.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// A CoordinatorServer journaling to `<job_log_dir>/coordinator/events.jsonl`, told the job's
/// goodput account as read from `job_log_dir` every five heartbeat intervals (or less often
/// when the folder is slow to read: report/goodput_watch.h).
class ServedCoordinator {
 public:
  /// Opens the journal in `<job_log_dir>/coordinator` (which must exist) and starts listening
  /// as `options` say (their `record` is set here). Throws std::runtime_error with the message
  /// for the user ("cannot write logs to DIR: REASON", or the server's own) when either fails.
  ServedCoordinator(const Plan& plan, coordinator::ServerOptions options,
                    const std::string& job_log_dir);
  /// Stops serving; open connections are closed.
  ~ServedCoordinator();
  ServedCoordinator(const ServedCoordinator&) = delete;
  ServedCoordinator& operator=(const ServedCoordinator&) = delete;

  /// The address and port it listens on.
  const std::string& listen_address() const { return listen_address_; }
  int port() const { return port_; }
  /// Writes `record` to the coordinator's journal and says its line (coordinator.ha's
  /// `coordinator-elected`).
  void note(const coordinator::Record& record);
  /// With coordinator.ha, when its lead may have ended: stops serving at once (every
  /// connection closed, nothing more decided) and journals `coordinator-stepped-down` with
  /// `reason`. Safe from any thread but one calling its other members.
  void step_down(const std::string& node, const std::string& reason);
  bool stepped_down() const { return !server_; }
  /// Once the job ended: the plan's machines with no launcher connected at the end (none once
  /// it stepped down).
  std::vector<std::string> absent() const;
  /// Waits until the other launchers heard how the job ended (and the final metrics were
  /// served, monitoring.metricsLinger), `timeout` passed, or a stop signal (SIGTERM, SIGINT,
  /// SIGHUP) is pending: that one ends the wait at once.
  void wait(std::chrono::milliseconds timeout);

 private:
  std::string listen_address_;
  int port_ = 0;
  std::unique_ptr<EventLog> journal_;  // outlives the server, which records into it
  std::unique_ptr<coordinator::CoordinatorServer> server_;
  std::unique_ptr<report::GoodputWatch> goodput_;  // stops before the server it tells
};

}  // namespace pai::launcher
