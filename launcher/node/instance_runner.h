// What a node agent needs of the process that runs its instance: the supervisor
// (supervisor/supervisor.h), with the coordinator deciding instead of the node's own restart
// policy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/policy/restart_policy.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// Runs this node's instance (at most one; a spare gets its own later) and carries out the
/// coordinator's decisions. Instance numbers are the runner's own: the order of
/// add_instance().
class InstanceRunner {
 public:
  virtual ~InstanceRunner() = default;

  /// Runs until finish() is carried out; returns the exit code given to finish(), or 128+N
  /// when stopped by signal N. Nothing it started is left running when it returns.
  virtual int run() = 0;
  /// Starts supervising `placement` (one of the plan's placements); returns its number.
  /// Starts nothing.
  virtual int add_instance(const Placement& placement) = 0;
  /// A spare on standby: starts the warm interpreters (faultTolerance.warmStart) an instance it
  /// may take would fork its ranks from, logging into the log folder's `folder`.
  virtual void prewarm(const std::string& folder) = 0;
  /// Carries out a decision of the coordinator (StartInstance, StopInstance).
  virtual void apply(const PolicyAction& action) = 0;
  /// SIGKILLs an instance's processes as a failure (`pai-launch kill`); their exits are
  /// reported like any other.
  virtual void kill_instance(int instance) = 0;
  /// A drill's fault (`pai-launch drill`) into local rank `local_rank` of `instance`, or the
  /// launcher itself for node-loss (Supervisor::inject); returns why it could not ("" done).
  virtual std::string inject(int instance, int local_rank, DrillFault fault, int seconds) = 0;
  /// The coordinator's checkpoint advice, for the ranks' `checkpoint-advice` requests; with
  /// `report` the saves begun under `request` are reported as they end (checkpointed).
  virtual void advise_checkpoints(std::int64_t interval_seconds, std::int64_t request,
                                  bool report) = 0;
  /// Ends run() with `exit_code` once what still runs is stopped (SIGTERM, grace period,
  /// SIGKILL).
  virtual void finish(int exit_code, const std::string& reason) = 0;
  /// The current log file of each local rank of `instance`, in local rank order.
  virtual std::vector<std::string> log_files(int instance) const = 0;
  /// What heartbeats report about `instance`.
  virtual InstanceActivity activity(int instance) const = 0;
};

}  // namespace pai::launcher
