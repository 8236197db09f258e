// The env contract of design §5: the one place that decides a process's environment.
//
// Rendered env scripts (env/<role>-<i>.sh) and the launcher both call these functions, so
// what a script exports and what the launcher gives a process after a node replacement
// cannot drift apart.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "libpai/plan.h"

namespace pai {

/// Ordered NAME=value pairs; names unique.
using EnvList = std::vector<std::pair<std::string, std::string>>;

/// What only the running launcher knows. Empty strings leave the variable out.
struct ProcessContext {
  int restart_count = 0;
  std::string control_socket;  ///< PAI_CONTROL_SOCKET
  std::string hostfile;        ///< OMPI_MCA_orte_default_hostfile (MPI jobs)
  std::string rsh_agent;       ///< OMPI_MCA_plm_rsh_agent (MPI jobs)
  /// PAI_COORDINATOR ("address:port") and PAI_TOKEN_FILE of a multi-node job: what
  /// `pai-launch rsh` and the control commands use from inside the job.
  std::string coordinator;
  std::string token_file;
  /// PAI_TELEMETRY_FILE: the telemetry ring of one process (include/pai/telemetry.h). A
  /// per-process field, like telemetry_peers_file: a context that sets them describes one rank.
  std::string telemetry_file;
  /// PAI_TELEMETRY_PEERS_FILE: the per-peer table of one process, next to its ring
  /// (include/pai/telemetry.h), which pai's NCCL profiler plugin writes.
  std::string telemetry_peers_file;
  /// PAI_LATEST_CHECKPOINT: the newest complete checkpoint of the job (pai.checkpoint's
  /// `<output>/checkpoints/step-<N>`), for a rank to resume from.
  std::string latest_checkpoint;
  /// NCCL_PROFILER_PLUGIN: the absolute path of pai's NCCL profiler plugin
  /// (libpai-nccl-profiler.so), found by the launcher. Given only when the plan asks
  /// (fault_tolerance.diagnosis.nccl_profiler) and the role's env does not set the variable.
  std::string nccl_profiler;
  /// TORCHELASTIC_ERROR_FILE of a rank of an envConvention torchrun role: where
  /// torch.distributed.elastic's `@record` writes the exception that ended the rank (a
  /// per-process field, like telemetry_file), which the launcher shows as the root cause.
  std::string error_file;
  /// PAI_USER_NAME (and OpenPAI's older PAI_USERNAME): the user the job's processes run as,
  /// OpenPAI's "user who submitted the job"; with it PAI_FRAMEWORK_NAME, "<user>~<job>".
  std::string user_name;
};

/// OpenPAI's per-instance variables of *other* instances (PAI_HOST_IP_<role>_<i>, ...)
/// are exported only for jobs with at most this many instances: beyond it they would
/// exceed the kernel's environment limits (a 10,000-node job would give every process
/// ~400 KB of env). The current instance's own variables are always exported.
inline constexpr int kOpenPaiPeerEnvMaxInstances = 128;

/// Variables identical for every process of the job: OpenPAI job-level variables (with
/// PAI_MIN_FAILED_TASK_COUNT_<role>, PAI_MIN_SUCCEEDED_TASK_COUNT_<role> and the older names
/// PAI_JOB_TASK_COUNT, PAI_TASKS_NUM, PAI_JOB_TASK_ROLE_COUNT, PAI_TASK_ROLES_NUM,
/// PAI_JOB_TASK_ROLE_LIST, PAI_TASK_ROLE_INSTANCES) and fabric presets (NCCL_*, GLOO_*),
/// PAI_JOB_NAME, PAI_OUTPUT_DIR, PAI_MAX_RESTARTS, MASTER_ADDR/MASTER_PORT, and the
/// framework's presets (JAX_COORDINATOR_ADDRESS, RAY_ADDRESS, DMLC_TRACKER_URI, Megatron's
/// CUDA_DEVICE_MAX_CONNECTIONS, ...; docs/frameworks.md).
EnvList job_env(const Plan& plan);

/// Variables identical for every process of one instance (node-level ranks, the
/// instance's OpenPAI variables - PAI_CONTAINER_HOST_IP, PAI_CONTAINER_HOST_<label>_PORT_LIST,
/// PAI_CONTAINER_HOST_PORT_LIST, ... - and the role's user env which overrides presets).
/// An envConvention torchrun role gets torchrun's agent variables instead of NODE_RANK, NNODES
/// and NPROC_PER_NODE: GROUP_WORLD_SIZE, TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_RUN_ID (the
/// job's name), TORCHELASTIC_USE_AGENT_STORE=False and, unless the role's env sets them,
/// TORCH_NCCL_ASYNC_ERROR_HANDLING=1 and NCCL_ASYNC_ERROR_HANDLING=1. With masterStore
/// launcher every role gets TORCHELASTIC_USE_AGENT_STORE=True instead.
EnvList instance_env(const Plan& plan, const Placement& placement, const ProcessContext& ctx);

/// Variables that differ between the processes of one instance (RANK, LOCAL_RANK, ...).
EnvList rank_env(const Plan& plan, const Placement& placement, int local_rank);

/// The complete environment contract of one process: job_env, then instance_env, then
/// rank_env and the framework's per-process variables (JAX_PROCESS_ID, DMLC_TASK_ID), then
/// ctx's PAI_TELEMETRY_FILE, PAI_TELEMETRY_PEERS_FILE and (envConvention torchrun)
/// TORCHELASTIC_ERROR_FILE; a later layer's value for a name replaces an earlier one in place.
EnvList process_env(const Plan& plan, const Placement& placement, int local_rank,
                    const ProcessContext& ctx);

/// True for the contract's rank variables that a role's `env` may not override
/// (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, PAI_RESTART_COUNT, ...).
bool is_reserved_env_name(const std::string& name);

/// The same, the variables `plan`'s framework sets for every process (JAX_PROCESS_ID,
/// DMLC_TASK_ID, RAY_ADDRESS, PAI_TENSOR_PARALLEL_SIZE, ...; docs/frameworks.md) and, in a
/// plan with an envConvention torchrun role, torchrun's (GROUP_WORLD_SIZE, TORCHELASTIC_*).
bool is_reserved_env_name(const std::string& name, const Plan& plan);

}  // namespace pai
