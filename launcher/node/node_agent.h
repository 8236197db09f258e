// A node of a multi-node job: joins the coordinator with this node's check results, runs the
// instance it is assigned (or waits as a standby spare), reports every policy event to the
// coordinator and carries out its decisions, runs commands for `pai-launch run`/`rsh`, streams
// logs for `pai-launch logs`, and stops everything when the coordinator is lost.
//
// The agent decides; its parts do. It is built from the parts below (run_node_agent.h builds
// the real ones) and fed events: messages and the loss of the link, the supervisor's policy
// events and deadlines (as its SupervisorHooks), and the output of commands and logs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "launcher/logs/event_log.h"
#include "launcher/net/protocol.h"
#include "launcher/node/command_runner.h"
#include "launcher/node/coordinator_link.h"
#include "launcher/node/fabric_runner.h"
#include "launcher/node/gpu_sampler.h"
#include "launcher/node/instance_runner.h"
#include "launcher/node/log_subscription.h"
#include "launcher/node/monotonic_clock.h"
#include "launcher/node/nic_telemetry.h"
#include "launcher/node/node_faults.h"
#include "launcher/node/sanity_check_runner.h"
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
  /// With coordinator.ha, joining the next coordinator: the instance (global) this launcher
  /// ran last, and that run's attempt (NodeAgent::ran()).
  std::optional<std::pair<int, int>> ran;
  /// Asked between attempts to join: a reason to stop trying this coordinator (with
  /// coordinator.ha, another launcher leads now), or "" to go on (node_link.h).
  std::function<std::string()> give_up;
  std::chrono::milliseconds heartbeat_interval{1000};
  /// This launcher also runs the coordinator (its port is in use by design).
  bool serves_coordinator = false;
  /// Results of the checks run before joining.
  std::vector<checks::CheckResult> checks;
  /// How the checks run again on the coordinator's request (their children's containment);
  /// coordinator_served_here is set from serves_coordinator.
  checks::CheckOptions check_options;
  /// Directory for the hostfile of the final assignment (MPI jobs).
  std::string run_dir;
  SupervisorOptions supervisor;
};

/// What a node agent drives; each must outlive the agent.
struct NodeAgentParts {
  CoordinatorLink& link;
  InstanceRunner& instances;
  CommandRunner& commands;
  LogSubscription& logs;
  SanityCheckRunner& checks;
  MonotonicClock& clock;
  GpuSampler& gpus;
  FabricRunner& fabric;
  NicTelemetry& nics;
  NodeFaults& faults;
};

/// This node's part of a multi-node job (docs/protocol.md, "Node launcher").
class NodeAgent final : public SupervisorHooks {
 public:
  /// An agent for `options.node` of `plan` (re-placed by `assign`; it must outlive the
  /// agent), journaling to `events`. Writes its terminal lines to
  /// options.supervisor.terminal_stderr. Does nothing yet.
  NodeAgent(Plan& plan, const NodeAgentOptions& options, EventLog& events, NodeAgentParts parts);

  /// Runs this node's part of the job: join(), then the instance runner until the job is
  /// over. Returns the launcher's exit code (design §6): what the coordinator decided for
  /// the job, kExitCoordinatorLost (3) when the coordinator was lost after joining it (1 in
  /// the coordinator's own launcher), 1 when it could not be reached, 128+N when stopped by
  /// signal N. Commands still running are killed.
  int run();

  /// The instance (global) this node last started and that attempt; nullopt before any.
  std::optional<std::pair<int, int>> ran() const { return ran_; }

  /// Connects (until options.rendezvous_timeout from now) and sends `join` with the node, its
  /// check results, the launcher's pid and the plan's seal. False, said and journaled
  /// (`coordinator-unreachable`), when the coordinator cannot be reached; false, said and
  /// journaled (`node-stopping`) when a stop signal came first (run() then returns 128+N).
  bool join();

  /// A message from the coordinator. One that is not understood (unknown type, a missing or
  /// mistyped field, an instance not ours) is said and journaled (`protocol-error`) and
  /// otherwise ignored.
  void on_message(const nlohmann::json& message);
  /// The link to the coordinator is gone: commands are killed and the instance stopped; run()
  /// then returns kExitCoordinatorLost (the job did not fail on its own account), or 1 in the
  /// launcher that serves the coordinator itself.
  void on_lost(const std::string& why);
  /// Output of command `id` on `stream`: sent as `exec-output`.
  void on_command_output(std::int64_t id, net::Stream stream, std::string_view data);
  /// Command `id` ended with `code`: sent as `exec-exit`.
  void on_command_exit(std::int64_t id, int code);
  /// A chunk of rank `rank`'s log for the subscription: sent as `log`.
  void on_log_output(int rank, std::string_view data);

  // ---- SupervisorHooks ----

  /// Reports the event to the coordinator (`exited`, `stopped`, `hang`) and returns no
  /// actions; a stop request (a signal) ends the node's run with 128+N instead.
  std::vector<PolicyAction> decide(const PolicyEvent& event) override;
  /// Sends `failure` with the summary.
  void failure_summary(int instance, int global_rank, const std::string& summary) override;
  /// The link's next deadline, or the end of a drill's fault of the node.
  std::optional<Clock::time_point> next_deadline() override;
  /// Heartbeats (with the instance's activity while it runs) and the coordinator's silence;
  /// a drill's fault of the node taken off when its seconds are over.
  void on_deadline(Clock::time_point now) override;
  /// Hands the exit to the commands; true when it was one of theirs.
  bool on_child_exit(int pid, int wait_status) override;
  /// While logs are subscribed: the rank's log grew.
  void on_output(int instance, int local_rank) override;
  /// Sends `checkpointed`: a save the coordinator asked to hear of (a swap's) ended.
  void checkpointed(int instance, std::int64_t step, std::int64_t request) override;
  /// Sends `forensics` with each rank's stack verdict.
  void forensics(int instance, int attempt, const Forensics::Report& report) override;
  /// Sends `node-failed` with the reason, unless the node is already ending.
  void gave_up(int exit_code, const std::string& reason) override;

 private:
  void say(const std::string& text);
  net::NodeHeartbeat heartbeat();
  /// While the instance runs: the node's GPUs into `beat` when a sample is due (every
  /// gpu_sample_interval() of the plan's gpuIdle window); once, a note when they cannot be.
  void sample_gpus(net::NodeHeartbeat& beat);
  void dispatch(const net::CoordinatorToNode& message);
  /// A critical NIC verdict about this node's port: journalled, and with
  /// sanityCheck.history recorded there as a failed check.
  void record_nic_verdict(const net::NicVerdictNotice& message);
  template <class Message>
  int local_of(const Message& message, int instance) const;
  void assign(const net::Assign& m);
  void write_hostfile();
  void run_checks(int attempt);
  /// Takes part in the fabric check: listens or connects as asked, reports what it measured.
  void fabric_listen(const net::FabricListen& m);
  void fabric_connect(const net::FabricConnect& m);
  /// Sends a fabric message to the coordinator, journaling and saying its outcome.
  void fabric_report(net::NodeToCoordinator message);
  void subscribe_logs(const net::SubscribeLogs& m);
  /// A drill's fault: the node's own (its link, its output folder's disk) by NodeFaults, the
  /// others into the instance's rank or launcher (InstanceRunner::inject). A refusal is said.
  void inject(const net::Inject& m);
  /// Takes a drill's fault of the node off, journaling `fault-reverted` with `why`.
  void end_node_fault(const char* why);
  void finish(const net::Finish& m);
  /// Says that the job failed for `reason` (the coordinator's, with its summary) once per
  /// terminal: nothing where the coordinator runs in this launcher, else its first line.
  void say_failure(const std::string& reason);

  Plan& plan_;
  const NodeAgentOptions& options_;
  EventLog& events_;
  NodeAgentParts parts_;
  const std::vector<Host> planned_hosts_;  // what `assign` changes are relative to
  int global_instance_ = -1;
  std::optional<std::pair<int, int>> ran_;  // the last `start`: global instance, attempt
  int local_instance_ = -1;
  bool stopping_ = false;   // a stop from the coordinator is in progress
  int stopped_by_ = 0;      // the stop signal that ended the wait for the coordinator
  bool finishing_ = false;  // the job is over for this node: nothing more is reported
  std::optional<MonotonicClock::TimePoint> gpus_sampled_;  // the latest GPU sample of this run
  bool gpus_unavailable_ = false;                          // no NVML: never asked again
  // A drill's fault of this node (carried_by_node): its fault, instance and end.
  struct NodeFault {
    DrillFault fault;
    std::string instance;
    MonotonicClock::TimePoint until;
  };
  std::optional<NodeFault> node_fault_;
};

}  // namespace pai::launcher
