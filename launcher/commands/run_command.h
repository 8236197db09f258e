// `pai-launch run`: load the plan, identify this node, prepare logs, supervise its instance —
// alone for a one-node job, as a node of the coordinator's job otherwise (the launcher of the
// coordinator's host also runs the coordinator).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/commands/served_coordinator.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/plan.h"
#include "libpai/plan_seal.h"

namespace pai::launcher {

/// The options of `pai-launch run`.
struct RunOptions {
  std::string plan_path;            ///< --plan
  std::optional<std::string> node;  ///< --node NAME
  std::optional<int> node_rank;     ///< --node-rank N
  std::string token_file;           ///< --token-file; empty = job.token next to the plan, if any
  /// --log-dir; empty = `<output>/logs` when the plan has an output dir, else `logs` next
  /// to plan.json.
  std::string log_dir;
  /// Where control sockets go (`<control_root>/<job>/<node>/<role>-<i>.sock`); the docker runtime
  /// bind-mounts it into containers.
  std::string control_root = kLauncherRunDir;
  /// --slurm: the hosts come from the Slurm allocation (SLURM_JOB_NODELIST, SLURM_NODEID).
  bool slurm = false;
  /// --rendezvous-timeout: how long the coordinator waits for every instance, and a launcher
  /// for the coordinator.
  std::chrono::milliseconds rendezvous_timeout{std::chrono::minutes(5)};
  /// --heartbeat-interval: between launchers and the coordinator; a peer silent for 5
  /// intervals is lost.
  std::chrono::milliseconds heartbeat_interval{1000};
  /// --verdict-file: where the launcher that runs the coordinator writes the job's exit code
  /// (the verdict, one line) when it ends; the other launchers ignore it. Empty = nowhere.
  std::string verdict_file;
  /// The coordinator takes each node's address from its connection (the plan's are
  /// placeholders): set with --slurm, and by `pai-launch torchrun`, whose nodes are known only
  /// when they join.
  bool addresses_from_peers = false;
  /// Which streams of each local rank reach the terminal (SupervisorOptions::console).
  std::vector<ConsoleStreams> console;
};

/// A plan made in memory (`pai-launch torchrun`), to run as `run` runs a plan.json.
struct PlanToRun {
  /// The plan, placed, its `seal` set (plan_seal()) so that the coordinator refuses a node
  /// that made another plan.
  Plan plan;
  /// The job token; `file` holds it (PAI_TOKEN_FILE). Needed when the job has a coordinator.
  std::optional<JobToken> token;
  /// This node's host name in the plan.
  std::string node;
  /// The job's coordinator, already listening, when this node serves it (null: run_plan
  /// starts it when this node is the plan's coordinator host).
  std::unique_ptr<ServedCoordinator> coordinator;
};

/// Runs the command, printing each phase with its timing on stderr. Returns the exit code of
/// design §6: 0 success, 1 the job failed, 2 a usage, plan, node or log-dir error (nothing
/// started), 126/127 a command that cannot run, 128+N stopped by signal N.
int run_command(const RunOptions& options);

/// Runs this node's part of `plan` as run_command() runs a loaded plan.json (options.plan_path
/// is not read; options.log_dir must be set). Same exit codes.
int run_plan(PlanToRun plan, const RunOptions& options);

/// What a coordinator is given under coordinator.ha (docs/coordinator-ha.md).
struct HaServing {
  /// Set when it takes the job over from a lost coordinator.
  std::optional<coordinator::Takeover> takeover;
  /// Hears the state to keep in etcd (coordinator_machine.h).
  std::function<void(const coordinator::TakeoverState&)> publish_state;
  /// Hears that its node is cut off from every other (coordinator_server.h).
  std::function<void(const std::string&)> on_cut_off;
};

/// Starts serving `plan`'s coordinator as `run` does on the coordinator's host, journaling to
/// `<log_dir>/coordinator/events.jsonl`. Throws std::runtime_error with the message for the
/// user ("cannot listen on ADDRESS:PORT: Address already in use", "cannot write logs to ...").
/// `node` is this launcher's node (a swap never takes it out of the job).
std::unique_ptr<ServedCoordinator> serve_coordinator(const Plan& plan, const RunOptions& options,
                                                     const std::string& token,
                                                     const std::string& log_dir,
                                                     const std::string& node, HaServing ha = {});

}  // namespace pai::launcher
