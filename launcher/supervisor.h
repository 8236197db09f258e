// The supervisor: starts an instance's processes, relays their output, reaps them, watches
// for hangs, serves the control socket and carries out what the restart policy decides.
//
// One thread, one loop: signals (signalfd), pipes and sockets (epoll) and deadlines. Every
// decision goes through RestartPolicyMachine; the supervisor only does.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "launcher/event_log.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// How the supervisor runs, beyond the plan.
struct SupervisorOptions {
  /// Root of the logs: instance `<role>-<i>` writes
  /// `<log_dir>/<role>-<i>/rank-<r>.attempt-<k>.log`. Each instance directory must exist and be
  /// writable.
  std::string log_dir;
  /// Directory of the control sockets (`<control_dir>/<role>-<i>.sock`); empty = none.
  std::string control_dir;
  /// MPI hostfile given to processes (OMPI_MCA_orte_default_hostfile); empty = none.
  std::string hostfile;
  /// Where relayed stdout and stderr go; prefixes are colored when the descriptor is a TTY.
  int terminal_stdout = 1;
  int terminal_stderr = 2;
};

/// Supervises the given instances of `plan` until the job completes or fails.
class Supervisor {
 public:
  /// `instances` are placements of `plan` (which must outlive the supervisor); `events` is
  /// the journal every decision is written to before it is carried out. Opens the control
  /// sockets; throws std::runtime_error if one cannot be served. Starts nothing.
  Supervisor(const Plan& plan, std::vector<const Placement*> instances, SupervisorOptions options,
             EventLog& events);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  /// Runs the job: 0 success, 1 failed, 126/127 a command that cannot run, 128+N stopped by
  /// signal N. The consumed signals must already be blocked (signals.h). Nothing it started
  /// is left running when it returns.
  int run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher
