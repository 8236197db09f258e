// The framework presets of the env contract (design §5, docs/frameworks.md): what JAX, Ray,
// XGBoost and Megatron-LM read from the environment, computed from the plan like the rest of
// the contract, so that a spare taking over a node gives its processes the same variables.
// env_contract.cpp layers these into job_env() and process_env(); the compiler's planner
// reserves the ports they point at (compiler/plan/framework_launch.h).
#pragma once

#include <string>

#include "libpai/env_contract.h"

namespace pai {

/// The port label a framework reserves on the first instance of the master role: "ray" (the
/// head's GCS port) for ray, "tracker" (the Rabit tracker's) for xgboost; "" for the others.
const char* framework_port_label(Framework framework);

/// Variables identical for every process of the job:
///   jax:      JAX_COORDINATOR_ADDRESS (MASTER_ADDR:MASTER_PORT), JAX_NUM_PROCESSES
///   ray:      RAY_ADDRESS (the head's address and "ray" port)
///   xgboost:  DMLC_TRACKER_URI, DMLC_TRACKER_PORT (the first instance's "tracker" port),
///             DMLC_NUM_WORKER
///   megatron: the presets CUDA_DEVICE_MAX_CONNECTIONS=1 and TORCH_NCCL_AVOID_RECORD_STREAMS=1
///             (a role's env overrides them) and PAI_TENSOR_PARALLEL_SIZE,
///             PAI_PIPELINE_PARALLEL_SIZE, PAI_CONTEXT_PARALLEL_SIZE, PAI_DATA_PARALLEL_SIZE.
/// An unplaced plan gives empty addresses and port 0.
EnvList framework_job_env(const Plan& plan);

/// Variables that differ between processes: JAX_PROCESS_ID (the global rank) and, when the
/// instance has GPUs and several processes, JAX_LOCAL_DEVICE_IDS (the GPUs of this process:
/// its share of resources.gpu); DMLC_TASK_ID (the global rank).
EnvList framework_rank_env(const Plan& plan, const Placement& placement, int local_rank);

/// True for the variables framework_job_env() and framework_rank_env() set for `framework`
/// that a role's env may not override (the presets CUDA_DEVICE_MAX_CONNECTIONS and
/// TORCH_NCCL_AVOID_RECORD_STREAMS may be).
bool is_framework_env_name(Framework framework, const std::string& name);

}  // namespace pai
