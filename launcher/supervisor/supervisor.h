// The supervisor: starts an instance's processes, relays their output, reaps them, watches
// for hangs, serves the control socket and carries out what the restart policy decides.
//
// One thread, one loop: signals (signalfd), pipes and sockets (epoll) and deadlines. Every
// decision goes through RestartPolicyMachine; the supervisor only does.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/logs/event_log.h"
#include "launcher/os/event_loop.h"
#include "launcher/policy/restart_policy.h"
#include "launcher/supervisor/forensics.h"
#include "launcher/supervisor/rank_telemetry.h"
#include "libpai/drill_fault.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// What a multi-node launcher (node_agent.h) plugs into the supervisor: the coordinator decides
/// instead of the node's own RestartPolicyMachine, and the agent's timers, children and
/// interest in output ride on the supervisor's one loop. Instance numbers are the
/// supervisor's (the order of add_instance / the constructor's list).
class SupervisorHooks {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~SupervisorHooks() = default;
  /// A policy event of this node. Returns the actions to carry out now; a remote decider
  /// forwards the event and returns none, its actions arrive later through
  /// Supervisor::apply().
  virtual std::vector<PolicyAction> decide(const PolicyEvent& event) = 0;
  /// A rank failed; `summary` is its root-cause summary (exit, matched line, log tail).
  virtual void failure_summary(int instance, int global_rank, const std::string& summary) = 0;
  /// A rank of `instance` saved a checkpoint of `step` that it began under `request`, the
  /// request advise_checkpoints() asked to report.
  virtual void checkpointed(int instance, std::int64_t step, std::int64_t request) = 0;
  /// When on_deadline() next has something to do.
  virtual std::optional<Clock::time_point> next_deadline() = 0;
  virtual void on_deadline(Clock::time_point now) = 0;
  /// A child the supervisor did not start ended; true when it was the hooks'.
  virtual bool on_child_exit(int pid, int wait_status) = 0;
  /// A rank of `instance` wrote output (its log file grew).
  virtual void on_output(int instance, int local_rank) = 0;
  /// Hang forensics of the instance's ranks in `attempt` were collected (and journaled);
  /// `report` holds each rank's stack verdict.
  virtual void forensics(int instance, int attempt, const Forensics::Report& report) = 0;
  /// The supervisor gives up on its own (it cannot serve the ranks' store, it ran out of
  /// descriptors): run() ends with `exit_code` once what runs is stopped.
  virtual void gave_up(int exit_code, const std::string& reason) = 0;
};

/// What the kernel counted for one running rank (its cgroup), for `status`.
struct RankActivity {
  int rank = 0;  ///< global
  int pid = 0;
  std::int64_t cpu_ms = 0;
  std::int64_t memory_bytes = -1;       ///< -1: unknown (no memory controller)
  std::int64_t memory_peak_bytes = -1;  ///< -1: unknown
};

/// What heartbeats report about one instance.
struct InstanceActivity {
  bool running = false;
  std::int64_t idle_ms = 0;        ///< since the last output or progress report
  std::int64_t hang_interval = 0;  ///< seconds; 0 = detection off
  std::int64_t step = -1;          ///< the last progress step reported
  std::vector<RankActivity> ranks;  ///< its running ranks; empty without cgroups
  /// Its running ranks' telemetry over the window since the previous activity() call, with
  /// the TCP figures of their processes; a rank without a ring, or that never wrote to it,
  /// has none.
  std::vector<RankTelemetrySummary> telemetry;
};

/// Whether a local rank's stdout and stderr are relayed to the terminal.
struct ConsoleStreams {
  bool out = true;
  bool err = true;
};

/// How the supervisor runs, beyond the plan.
struct SupervisorOptions {
  /// Root of the logs: instance `<role>-<i>` writes
  /// `<log_dir>/<role>-<i>/rank-<r>.attempt-<k>.log`. Each instance directory must exist and be
  /// writable.
  std::string log_dir;
  /// Directory of the control sockets (`<control_dir>/<role>-<i>.sock`), of the ranks'
  /// telemetry rings (`<control_dir>/<role>-<i>.rank-<r>.telemetry`, PAI_TELEMETRY_FILE) and
  /// of their per-peer tables (`<ring>.peers`, PAI_TELEMETRY_PEERS_FILE); empty = none.
  std::string control_dir;
  /// MPI hostfile given to processes (OMPI_MCA_orte_default_hostfile); empty = none.
  std::string hostfile;
  /// OMPI_MCA_plm_rsh_agent of MPI jobs ("/path/pai-launch rsh"); empty = none.
  std::string rsh_agent;
  /// What a drill's slow-gpu runs to burn a rank's GPU, given the GPU's index and the seconds
  /// after it (`/path/pai-launch drill-burn`, commands/drill_burn_command.h); empty: slow-gpu
  /// is refused.
  std::vector<std::string> gpu_burner;
  /// PAI_COORDINATOR ("address:port") and PAI_TOKEN_FILE of a multi-node job; empty = none.
  std::string coordinator;
  std::string token_file;
  /// NCCL_PROFILER_PLUGIN given to ranks when the plan asks for it
  /// (fault_tolerance.diagnosis.nccl_profiler): pai's plugin, nccl_profiler_library.h; empty =
  /// none.
  std::string nccl_profiler;
  /// Names this launcher's cgroup tree ("pai-<job>.<node>", os/cgroup.h) that holds every
  /// rank in a cgroup of its own; empty = process groups only.
  std::string cgroup_name;
  /// Where relayed stdout and stderr go; prefixes are colored when the descriptor is a TTY.
  int terminal_stdout = 1;
  int terminal_stderr = 2;
  /// Which streams of each local rank reach the terminal (torchrun's --redirects, --tee and
  /// --local-ranks-filter), indexed by local rank; a rank past the end shows both. Every stream
  /// is kept whole in the rank's log file all the same.
  std::vector<ConsoleStreams> console;
};

/// Supervises the given instances of `plan` until the job completes or fails.
class Supervisor {
 public:
  /// `instances` are placements of `plan` (which must outlive the supervisor, and may be
  /// re-placed in between: instances are remembered by their index in plan.placements);
  /// `events` is the journal every decision is written to before it is carried out. Opens the
  /// control sockets; throws std::runtime_error if one cannot be served. Starts nothing.
  /// Without `hooks` the node's own RestartPolicyMachine decides.
  Supervisor(const Plan& plan, std::vector<const Placement*> instances, SupervisorOptions options,
             EventLog& events, SupervisorHooks* hooks = nullptr);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  /// Runs the job: 0 success, 1 failed, 126/127 a command that cannot run, 128+N stopped by
  /// signal N. The consumed signals must already be blocked (signals.h). Nothing it started
  /// is left running when it returns.
  int run();

  // ---- for SupervisorHooks users (multi-node) ----

  /// Adds an instance (a spare given an instance by the coordinator); returns its number.
  int add_instance(const Placement& placement);
  /// A spare on standby: starts, for each local rank of the plan's first warm role
  /// (faultTolerance.warmStart) that has an instance, the warm interpreter that role's first
  /// instance would get, writing to `<log_dir>/<folder>/warm-interpreters.log`. An instance of
  /// that role added later takes them, so its first start is warm; an instance of another role
  /// ends them. Does nothing without a warm role, or once called.
  void prewarm(const std::string& folder);
  /// Carries out an action decided elsewhere (the coordinator).
  void apply(const PolicyAction& action);
  /// SIGKILLs an instance's processes as a failure (`pai-launch kill`): the exits are reported
  /// like any other.
  void kill_instance(int instance);
  /// A drill's fault into local rank `local_rank` of `instance` (rank-kill, rank-hang,
  /// slow-rank, collective-hang; injected_fault.h), bounded by `seconds`: journaled
  /// `fault-injected`, and `fault-reverted` when a bounded one ends. A fault still going on in
  /// the instance ends first. Returns why it could not be done ("" when done): the rank is not
  /// running, or (collective-hang) records no collective in its telemetry ring.
  std::string inject(int instance, int local_rank, DrillFault fault, int seconds);
  /// The coordinator's checkpoint advice (`checkpoint-advice`): what every instance's control
  /// socket answers `checkpoint-advice` with from now on. With `report`, the saves its ranks
  /// begin under `request` are told to the hooks (checkpointed) as they end.
  void advise_checkpoints(std::int64_t interval_seconds, std::int64_t request, bool report);
  /// Ends run() with `exit_code`: what still runs is stopped (SIGTERM, grace period, SIGKILL).
  void finish(int exit_code, const std::string& reason);
  /// Whether job-wide hang verdicts are someone else's: the node then decides only "stuck
  /// exiting" itself.
  void set_job_wide_hangs(bool on);
  /// The instance's log directory and its ranks' current log files.
  std::vector<std::string> log_files(int instance) const;
  /// What heartbeats report about the instance now. Each call ends a telemetry window of its
  /// ranks: call it once per heartbeat.
  InstanceActivity activity(int instance) const;
  int instances() const;
  /// Pid-specific reaping while something else waits for its own children (sanity checks or
  /// the fabric check's NCCL engine in a thread): `on` stops waitpid(-1). Nested: each `on`
  /// is ended by one `off`, and waitpid(-1) resumes after the last.
  void set_reap_known_only(bool on);
  EventLoop& loop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher
