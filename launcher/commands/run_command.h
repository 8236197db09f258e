// `pai-launch run`: load the plan, identify this node, prepare logs, supervise its instance —
// alone for a one-node job, as a node of the coordinator's job otherwise (the launcher of the
// coordinator's host also runs the coordinator).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "libpai/plan.h"

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
};

/// Runs the command, printing each phase with its timing on stderr. Returns the exit code of
/// design §6: 0 success, 1 the job failed, 2 a usage, plan, node or log-dir error (nothing
/// started), 126/127 a command that cannot run, 128+N stopped by signal N.
int run_command(const RunOptions& options);

}  // namespace pai::launcher
