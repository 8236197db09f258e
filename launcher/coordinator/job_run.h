// The job's run after the rendezvous (design §8): the hub that wires the run's parts. The
// launcher's RestartPolicyMachine governs every instance of the plan, fed by the reports of
// all launchers; its actions become messages (start, stop, finish). The parts keep their own
// state and decide; the hub applies what they decide: the instances' bookkeeping
// (InstanceRuns), the fabric check before restarts (RestartFabric), the job-wide hang
// (JobHangWatch), the ranks' diagnosis and its isolation (JobDiagnosis), hang forensics
// (JobForensics), GPU idleness (JobGpuIdle), NIC verdicts (JobNic), pausing (JobPause), the
// ranks' checkpoint advice (JobCheckpoints) and swapping degrading nodes (JobSwap). Restarts
// are preceded by sanity checks and lost or failing nodes are replaced by spares (node_checks.h,
// replacement.h). Internal to launcher/coordinator/.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/fabric_check.h"
#include "launcher/coordinator/instance_runs.h"
#include "launcher/coordinator/job_checkpoints.h"
#include "launcher/coordinator/job_diagnosis.h"
#include "launcher/coordinator/job_forensics.h"
#include "launcher/coordinator/job_gpu_idle.h"
#include "launcher/coordinator/job_hang.h"
#include "launcher/coordinator/job_lint.h"
#include "launcher/coordinator/job_nic.h"
#include "launcher/coordinator/job_pause.h"
#include "launcher/coordinator/job_swap.h"
#include "launcher/coordinator/restart_fabric.h"
#include "launcher/coordinator/run_view.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/restart_policy.h"

namespace pai::launcher::coordinator {

class JobRun final : public RunView {
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
  /// A save the swap's checkpoint request asked to hear of ended (job_run_swap.cpp).
  void checkpointed(int node, const net::Checkpointed& message, Clock::time_point now);

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
  /// Starts the paused instances again with the same attempt numbers; refused while a swap
  /// stops the job (it starts again by itself).
  ControlAnswer resume(const std::string& who, Clock::time_point now);
  /// SIGKILLs the instance "role-index" as a failure.
  ControlAnswer kill(const std::string& instance, const std::string& who);
  /// `pai-launch drill`: sends the fault to the instance's node (docs/drill.md); refused for a
  /// paused job, an instance not running, a local rank it lacks, and node-loss of the node
  /// that serves the coordinator.
  ControlAnswer inject(const net::InjectRequest& request, const std::string& who);
  /// `pai-launch checkpoint-now`: a new request number in the advice, sent to the running
  /// instances' nodes (their ranks' should_checkpoint answers True once).
  ControlAnswer checkpoint_now(const std::string& who);

  /// The job's saves as its goodput account measured them (`saves` that stalled the ranks,
  /// their mean `cost_seconds`): a refined interval is journaled and sent to the running
  /// instances' nodes.
  void measured_saves(double cost_seconds, std::int64_t saves);

  /// Backoffs elapsed, the job-wide hang and the time limit (spec `timeLimit`: the job is
  /// cancelled when it is reached, paused or not).
  void tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;

  bool paused() const override { return pause_.paused(); }
  int restart_count(int instance) const override { return policy_.restart_count(instance); }
  /// The fabric check run before a job-wide restart (sanityCheck.fabric.beforeRestarts) while
  /// it runs, for the nodes' reports; nullptr otherwise.
  FabricCheck* fabric() { return fabric_.running(); }
  /// After a report to fabric(): once the check is over, its exclusions take effect (spares
  /// take the instances of excluded nodes, or the job fails) and the restart goes on.
  void fabric_progress(Clock::time_point now);

 private:
  // ---- The policy ----
  void feed(const PolicyEvent& event);
  void process(std::vector<PolicyAction> actions);
  void apply(const std::vector<PolicyAction>& actions);
  void start_instance(int instance, int attempt, bool recheck);
  void stop_instance(const StopInstance& stop, const std::string& line);
  /// `batch` names the instances of the batch on its first restart ("" on the others).
  void schedule_restart(const ScheduleRestart& given, const std::string& batch);
  void instance_stopped(int instance);
  /// Starts what is pending once every pending node passed its checks; in sync mode also
  /// once no instance is still stopping or backing off.
  void start_ready();
  void fail(const FailJob& failure);
  void fail(const std::string& reason);
  /// With coordinator.ha: the state a coordinator taking over would need, to
  /// settings.publish_state when it changed.
  void publish_state();
  /// Sends the checkpoint advice to the nodes of the running instances; how many it reached.
  std::int64_t tell_checkpoint_advice();
  /// The advice the nodes get now: JobCheckpoints', asking for the saves' reports while a swap
  /// waits for its checkpoint.
  net::CheckpointAdvice checkpoint_advice() const;
  /// Starts the paused instances again (JobPause::resume).
  ControlAnswer restart_paused(const std::string& who);

  // ---- Swapping a degrading node (faultTolerance.swap, job_run_swap.cpp) ----
  /// Whether every instance runs: no start pending, no stop or backoff under way.
  bool steady() const;
  /// Begins the swap that is due, or gives up the one waiting for its checkpoint when it can
  /// no longer go on.
  void check_swap();
  void begin_swap(const SwapCause& cause);
  void abandon_swap(const std::string& reason);
  /// Once the swap's stop is over: the spare takes the node's instance and the job starts.
  void finish_swap();
  /// Sends every node its assignment after a spare took `instance` ("re-assigned worker-1 to
  /// spare-1"); false when the job ended on the way.
  bool reassign(int instance);

  // ---- What the parts decided ----
  /// The job-wide hang check (JobHangWatch) when `due` or no longer fresh: a hang is
  /// recorded, blamed on the diagnosis' culprit when it has one, and fed to the policy.
  void detect_hang(bool due);
  /// Judges the ranks' telemetry when due: records and shows each verdict, and isolates.
  void diagnose();
  /// `diagnosis.action: isolate` (JobDiagnosis::isolation): excludes the node named, or
  /// restarts the job at once to test the suspects' links, charged to `isolation.instance`.
  void isolate(const Diagnosis& verdict, const Isolation& isolation);
  /// The GPUs of node `node`'s heartbeat: kept for `status` and the metrics while its
  /// instance runs; each GPU-idle verdict is recorded and shown, and with
  /// `monitoring.gpuIdle.action: restart` fails the instance as retryable.
  void watch_gpus(int node, const std::vector<net::GpuSample>& gpus);
  /// The RDMA ports of node `node`'s heartbeat (JobNic): each verdict recorded and shown, a
  /// critical one sent to its node for its check history.
  void watch_nics(int node, const net::NodeHeartbeat& message);
  void apply_nic(const NicVerdict& verdict);
  /// At a start after the first: what changed in the starting nodes' facts since the attempt
  /// that last ran (`fabric-drift`); the facts kept for the next start.
  void note_drift(const std::vector<int>& starting);

  /// ProtocolError (on `field` of the message of `type`) unless `node` holds `instance`.
  void check_own(int node, int instance, const char* type, const char* field) const;
  /// ProtocolError (on `field` of the message of `type`) unless every entry names a rank of
  /// `instance`, and there are no more entries than it has ranks.
  template <class Entries>
  void check_ranks(int instance, const Entries& entries, const char* type, const char* field,
                   const std::string& what) const;

  CoordinatorState& state_;
  RestartPolicyMachine policy_;
  InstanceRuns runs_;
  RestartFabric fabric_;
  JobHangWatch hang_watch_;
  JobDiagnosis diagnosis_;
  JobForensics forensics_;
  JobGpuIdle gpu_idle_;
  JobNic nic_;
  JobPause pause_;
  JobCheckpoints checkpoints_;
  JobSwap swap_;
  // The starting nodes' facts at the latest start, and its attempt (drift compares with them).
  std::vector<std::pair<std::string, NodeFacts>> run_facts_;
  int run_facts_attempt_ = -1;
  std::deque<PolicyEvent> queue_;
  bool draining_ = false;
  Clock::time_point now_;
  std::optional<Clock::time_point> time_limit_at_;  // from the first start
  std::int64_t first_start_unix_ms_ = 0;            // the same, on the wall clock
  std::optional<TakeoverState> published_;          // the state publish_state() last gave
  bool started_ = false;                            // start_ready started instances once
};

}  // namespace pai::launcher::coordinator
