// The fault-tolerance policy as a state machine (design §8): events in, actions out.
//
// It decides; the supervisor does. It knows nothing of processes, clocks or sockets, so a
// multi-node coordinator can drive the same machine with events from remote launchers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "launcher/policy/failure_classifier.h"
#include "launcher/policy/policy_snapshot.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// One role instance the machine governs (on one node: the node's own instance).
struct GovernedInstance {
  std::string role;       ///< role name
  int index = 0;          ///< instance index within the role
  int nproc = 1;          ///< processes the instance runs
  Completion completion;  ///< the role's completion policy
  int first_rank = 0;     ///< global rank of its local rank 0
};

// ---- Events ----

/// A process of a running instance ended. `classification` is meaningful for failures.
struct ProcessExited {
  int instance = 0;  ///< index into the governed instances
  int local_rank = 0;
  ExitStatus status;
  Classification classification;
};
/// No output or progress for the hang interval, or ranks stuck exiting.
struct HangDetected {
  int instance = 0;
  Classification classification;  ///< from classify_hang()
};
/// The last process of an instance is gone (after exits or after a StopInstance).
struct InstanceStopped {
  int instance = 0;
};
/// The backoff of a ScheduleRestart has passed.
struct BackoffElapsed {
  int instance = 0;
};
/// The launcher was asked to stop (SIGTERM, SIGINT, SIGHUP). A second request escalates to
/// SIGKILL.
struct StopRequested {
  int signal = 0;
};
using PolicyEvent =
    std::variant<ProcessExited, HangDetected, InstanceStopped, BackoffElapsed, StopRequested>;

// ---- Actions ----

/// Start every process of an instance for attempt `restart_count` (0 = first start).
struct StartInstance {
  int instance = 0;
  int restart_count = 0;
};
/// Stop every process of an instance: optionally ask for stack dumps first, send `signal`,
/// then SIGKILL after the grace period. An InstanceStopped event must follow.
struct StopInstance {
  int instance = 0;
  int signal = 0;
  bool dump_stacks = false;
  std::string reason;
};
/// Wait `delay_seconds`, then report BackoffElapsed.
struct ScheduleRestart {
  int instance = 0;
  std::int64_t delay_seconds = 0;
  int restart_count = 0;  ///< the attempt that will start
  std::string reason;
  /// The failure's Classification::signature ("exit:1", "pattern:NCCL error", "hang").
  std::string signature;
};
/// The job is over and failed. `instance`/`local_rank` name the root cause (-1 = none).
struct FailJob {
  std::string reason;
  int exit_code = 1;
  int instance = -1;
  int local_rank = -1;
  ExitStatus status;
  Classification classification;
};
/// The job is over and succeeded.
struct CompleteJob {};
/// The job is over because a user stopped it (a stop signal): not a failure, no restart.
struct CancelJob {
  std::string reason;  ///< "pai-launch received SIGTERM"
  int exit_code = 0;   ///< 128 + the signal: 143 for SIGTERM, 130 for SIGINT
};
using PolicyAction =
    std::variant<StartInstance, StopInstance, ScheduleRestart, FailJob, CompleteJob, CancelJob>;

/// The restart policy of design §8 over a set of instances: maxRestarts (per instance),
/// maxSameError (per error signature), backoff, sync/async restarts, maxToleratedFailureRate
/// and the roles' completion policies (minSucceeded, minFailed: the job completes when a role
/// with minSucceeded >= 1 reached it, or else when every role's instances all succeeded, tolerated
/// failures aside). Restarts only happen when
/// restarts are enabled and the classification is retryable.
class RestartPolicyMachine {
 public:
  /// `instances` are all instances this machine decides for; `total_instances` is the job's
  /// instance count (for maxToleratedFailureRate).
  RestartPolicyMachine(FaultTolerance fault_tolerance, std::vector<GovernedInstance> instances,
                       int total_instances);

  /// The actions that start the job: a StartInstance for every instance.
  std::vector<PolicyAction> start();

  /// Feeds one event; returns the actions to carry out, in order.
  std::vector<PolicyAction> on(const PolicyEvent& event);

  /// Where the policy stands, for a coordinator that may take the job over.
  PolicySnapshot snapshot() const;
  /// The actions that start the job again under a coordinator that took it over
  /// (docs/coordinator-ha.md), from `past`, the lost coordinator's snapshot() of the same
  /// instances (an instance it does not list starts afresh). Instances that were over stay
  /// over; every other one starts at its next attempt, which counts as a restart for
  /// `reason`: with restarts disabled, or an instance's maxRestarts exhausted, the job fails
  /// instead. In place of start().
  std::vector<PolicyAction> resume(const PolicySnapshot& past, const std::string& reason);

  /// The current restart count of an instance (PAI_RESTART_COUNT of its processes).
  int restart_count(int instance) const { return states_.at(instance).restart_count; }
  /// True once FailJob or CompleteJob was emitted.
  bool finished() const { return finished_; }

 private:
  enum class Phase { Running, Stopping, BackingOff, Succeeded, Failed, Stopped };
  enum class AfterStop { Nothing, Restart, Fail, Tolerate, Stop, Complete };
  struct State {
    Phase phase = Phase::Running;
    AfterStop after_stop = AfterStop::Nothing;
    int restart_count = 0;
    int exited = 0;
    int succeeded = 0;
    bool tolerated = false;  ///< failed, tolerated by maxToleratedFailureRate
    std::string restart_reason;
    std::string restart_signature;
  };

  std::vector<PolicyAction> on_failure(int instance, int local_rank, const ExitStatus& status,
                                       const Classification& classification, bool hang);
  std::vector<PolicyAction> on_stopped(int instance);
  std::vector<PolicyAction> on_stop_requested(int signal);
  void stop(std::vector<PolicyAction>& out, int instance, AfterStop after, int signal, bool dump,
            const std::string& reason);
  // Stops every running instance for good; with `dump_stacks` (the failure is a hang) each
  // is asked for its stacks first.
  void fail_job(std::vector<PolicyAction>& out, FailJob failure, bool dump_stacks = false);
  std::vector<PolicyAction> settle();
  std::string incomplete_role() const;
  // Every phase change goes through set_phase, which keeps the tallies below: settle() and
  // incomplete_role() cost O(roles), not O(instances), on each of a big job's events.
  void set_phase(int instance, Phase phase);
  void tally(int instance, int sign);  // adds (1) or removes (-1) its state's share
  void retally();

  struct RoleTally {
    std::size_t first;  ///< the role's first instance (index into instances_)
    int members = 0;
    int succeeded = 0;  ///< instances in Succeeded
    int tolerated = 0;  ///< instances in Failed, tolerated
  };

  FaultTolerance ft_;
  std::vector<GovernedInstance> instances_;
  std::vector<State> states_;
  int total_instances_;
  std::vector<RoleTally> roles_;  ///< in governed order
  std::vector<int> role_of_;      ///< instance -> index into roles_
  int active_ = 0;                ///< instances Running, Stopping or BackingOff
  std::map<std::string, int> same_error_;
  bool failing_ = false;
  FailJob failure_;
  FailJob last_failure_;  ///< the latest refused failure, even a tolerated one
  int stop_signal_ = 0;
  bool finished_ = false;
};

}  // namespace pai::launcher
