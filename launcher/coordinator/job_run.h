// The job's run after the rendezvous (design §8): the launcher's RestartPolicyMachine governs
// every instance of the plan, fed by the reports of all launchers; its actions become
// messages (start, stop, finish), restarts are preceded by sanity checks, lost or failing
// nodes are replaced by spares, job-wide hangs are found from heartbeats, and the job can be
// paused, resumed and have an instance killed. Internal to launcher/coordinator/.
#pragma once

#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/fabric_check.h"
#include "launcher/coordinator/job_diagnosis.h"
#include "launcher/coordinator/job_forensics.h"
#include "launcher/coordinator/job_gpu_idle.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/restart_policy.h"

namespace pai::launcher::coordinator {

/// The answer to a job-control request: `ok` or `error` with `text`.
struct ControlAnswer {
  bool ok = true;
  std::string text;
};

class JobRun {
 public:
  /// Governs every placement of state.plan (total = plan.nodes).
  explicit JobRun(CoordinatorState& state);

  /// Starts every instance.
  void start(Clock::time_point now);

  // ---- Reports of the launcher of `node` (its instance is checked; ProtocolError if not) ----
  void exited(int node, const net::Exited& message, Clock::time_point now);
  void stopped(int node, const net::Stopped& message, Clock::time_point now);
  void hang(int node, const net::Hang& message, Clock::time_point now);
  void heartbeat(int node, const net::NodeHeartbeat& message, Clock::time_point now);
  void failure(int node, const net::Failure& message);
  void forensics(int node, const net::Forensics& message);

  /// A node answered `run-checks` (its results applied).
  void node_checked(int node, Clock::time_point now);
  /// A node joined while the job runs (its results applied): a spare stands by, a node that
  /// holds an instance (it was lost) gets its assignment again.
  void node_joined(int node, Clock::time_point now);
  /// The launcher of `node` is gone: for a node holding an instance, a node failure.
  void node_lost(int node, const std::string& why, Clock::time_point now);

  // ---- Job control ----
  /// Stops every running instance (SIGTERM, "paused by WHO"); their reports are not fed to
  /// the policy until resume().
  ControlAnswer pause(const std::string& who, Clock::time_point now);
  /// Starts the paused instances again with the same attempt numbers.
  ControlAnswer resume(const std::string& who, Clock::time_point now);
  /// SIGKILLs the instance "role-index" as a failure.
  ControlAnswer kill(const std::string& instance, const std::string& who);

  /// Backoffs elapsed, the job-wide hang and the time limit (spec `timeLimit`: the job is
  /// cancelled when it is reached, paused or not).
  void tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;

  bool paused() const { return paused_; }
  /// The fabric check run before a job-wide restart (sanityCheck.fabric.beforeRestarts) while
  /// it runs, for the nodes' reports; nullptr otherwise.
  FabricCheck* fabric() { return fabric_ ? &*fabric_ : nullptr; }
  /// After a report to fabric(): once the check is over, its exclusions take effect (spares
  /// take the instances of excluded nodes, or the job fails) and the restart goes on.
  void fabric_progress(Clock::time_point now);
  int restart_count(int instance) const { return policy_.restart_count(instance); }

 private:
  void feed(const PolicyEvent& event);
  void process(std::vector<PolicyAction> actions);
  void apply(const std::vector<PolicyAction>& actions);
  void start_instance(int instance, int attempt, bool recheck);
  void stop_instance(const StopInstance& stop, const std::string& line);
  /// `batch` names the instances of the batch on its first restart ("" on the others).
  void schedule_restart(const ScheduleRestart& restart, const std::string& batch);
  void instance_stopped(int instance);
  void start_ready();
  /// Whether the starts now ready must wait for a fabric check first (job-wide restarts in
  /// sync mode with beforeRestarts; not the job's first start, checked after the rendezvous).
  bool wants_fabric() const;
  void fail(const FailJob& failure);
  void fail(const std::string& reason);
  /// The job-wide hang check walks every instance: on messages at most once per
  /// kHangWalkEvery (a heartbeat costs O(1), not O(nodes)), on tick() whenever `due`.
  void detect_hang(bool due);
  void set_backoff(int instance, std::optional<Clock::time_point> until);
  /// Every change of an instance's start_pending goes through here (pending_ counts them).
  void set_pending(Instance& inst, bool pending);
  /// Every change of an instance's Run goes through here (stopping_ counts them).
  void set_run(int instance, Run run);
  /// Judges the ranks' telemetry when due: records and shows each verdict, and isolates.
  void diagnose();
  /// The GPUs of node `node`'s heartbeat: kept for `status` and the metrics while its instance
  /// runs, and judged: each GPU-idle verdict is recorded and shown, and with
  /// `monitoring.gpuIdle.action: restart` fails the instance as retryable ("gpu-idle").
  void watch_gpus(int node, const std::vector<net::GpuSample>& gpus);
  /// `diagnosis.action: isolate`: excludes the node the verdict names and restarts its
  /// instance (a spare takes it at the start). A hang whose stalled connections name no
  /// single node restarts the job at once when the fabric check runs before restarts: it
  /// tests the nodes and excludes the one that loses packets.
  void isolate(const Diagnosis& verdict);
  /// That restart for `verdict`, whose suspects are the ends of its stalled connections.
  void restart_to_test_links(const Diagnosis& verdict);
  /// ProtocolError (on `field` of the message of `type`) unless `node` holds `instance`.
  void check_own(int node, int instance, const char* type, const char* field) const;
  /// ProtocolError (on `field` of the message of `type`) unless every entry names a rank of
  /// `instance`, and there are no more entries than it has ranks.
  template <class Entries>
  void check_ranks(int instance, const Entries& entries, const char* type, const char* field,
                   const std::string& what) const;

  CoordinatorState& state_;
  RestartPolicyMachine policy_;
  JobDiagnosis diagnosis_;
  JobForensics forensics_;
  JobGpuIdle gpu_idle_;
  std::deque<PolicyEvent> queue_;
  bool draining_ = false;
  bool paused_ = false;
  Clock::time_point now_;
  std::optional<Clock::time_point> time_limit_at_;  // from the first start
  // Instances backing off, by when they are due: the earliest without a walk.
  std::set<std::pair<Clock::time_point, int>> backoffs_;
  int stopping_ = 0;  // instances whose Run is Stopping
  int pending_ = 0;   // instances whose start is pending
  bool started_ = false;  // start_ready started instances once
  // The fabric check before a restart: running, or passed for the starts now pending.
  std::optional<FabricCheck> fabric_;
  bool fabric_passed_ = false;
  // The job-wide hang check as last walked (detect_hang), and whether heartbeats came since.
  std::optional<Clock::time_point> hang_check_;
  Clock::time_point hang_walked_;
  bool hang_stale_ = false;
};

}  // namespace pai::launcher::coordinator
