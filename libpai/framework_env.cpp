#include "libpai/framework_env.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace pai {
namespace {

// The first port the first placement (instance 0 of the master role) holds under `label`,
// and that placement's address; port 0 and "" for an unplaced plan.
std::pair<std::string, int> first_instance_port(const Plan& plan, const std::string& label) {
  if (plan.placements.empty()) return {"", 0};
  const Placement& first = plan.placements.front();
  const auto it = first.ports.find(label);
  const int port = it == first.ports.end() || it->second.empty() ? 0 : it->second.front();
  return {first.host.address, port};
}

}  // namespace

const char* framework_port_label(Framework framework) {
  switch (framework) {
    case Framework::Ray:
      return "ray";
    case Framework::XGBoost:
      return "tracker";
    default:
      return "";
  }
}

EnvList framework_job_env(const Plan& plan) {
  EnvList env;
  switch (plan.framework) {
    case Framework::Jax:
      env.emplace_back("JAX_COORDINATOR_ADDRESS",
                       plan.master.address + ":" + std::to_string(plan.master.port));
      env.emplace_back("JAX_NUM_PROCESSES", std::to_string(plan.world_size));
      break;
    case Framework::Ray: {
      const auto [address, port] = first_instance_port(plan, framework_port_label(plan.framework));
      env.emplace_back("RAY_ADDRESS", address + ":" + std::to_string(port));
      break;
    }
    case Framework::XGBoost: {
      const auto [address, port] = first_instance_port(plan, framework_port_label(plan.framework));
      env.emplace_back("DMLC_TRACKER_URI", address);
      env.emplace_back("DMLC_TRACKER_PORT", std::to_string(port));
      env.emplace_back("DMLC_NUM_WORKER", std::to_string(plan.world_size));
      break;
    }
    case Framework::Megatron: {
      // Megatron-LM refuses tensor or context parallelism without it (arguments.py), and
      // the distributed optimizer's memory grows without the second.
      env.emplace_back("CUDA_DEVICE_MAX_CONNECTIONS", "1");
      env.emplace_back("TORCH_NCCL_AVOID_RECORD_STREAMS", "1");
      const Megatron& m = plan.megatron;
      const int model = m.tensor_parallel * m.pipeline_parallel * m.context_parallel;
      env.emplace_back("PAI_TENSOR_PARALLEL_SIZE", std::to_string(m.tensor_parallel));
      env.emplace_back("PAI_PIPELINE_PARALLEL_SIZE", std::to_string(m.pipeline_parallel));
      env.emplace_back("PAI_CONTEXT_PARALLEL_SIZE", std::to_string(m.context_parallel));
      env.emplace_back("PAI_DATA_PARALLEL_SIZE",
                       std::to_string(model > 0 ? plan.world_size / model : 0));
      break;
    }
    default:
      break;
  }
  return env;
}

EnvList framework_rank_env(const Plan& plan, const Placement& placement, int local_rank) {
  EnvList env;
  const std::string rank = std::to_string(placement.first_rank + local_rank);
  if (plan.framework == Framework::Jax) {
    env.emplace_back("JAX_PROCESS_ID", rank);
    // Each process drives its share of the instance's GPUs (JAX reads JAX_LOCAL_DEVICE_IDS
    // itself); one process per instance sees them all, as JAX's default does.
    const Role* role = find_role(plan, placement.role);
    if (role != nullptr && role->resources.gpu > 0 && role->nproc_per_node > 1) {
      const int per_process = std::max(1, role->resources.gpu / role->nproc_per_node);
      std::string ids;
      for (int d = local_rank * per_process; d < (local_rank + 1) * per_process; ++d) {
        if (!ids.empty()) ids += ',';
        ids += std::to_string(d);
      }
      env.emplace_back("JAX_LOCAL_DEVICE_IDS", ids);
    }
  }
  if (plan.framework == Framework::XGBoost) env.emplace_back("DMLC_TASK_ID", rank);
  return env;
}

bool is_framework_env_name(Framework framework, const std::string& name) {
  static constexpr std::array<std::string_view, 4> kJax = {
      "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_LOCAL_DEVICE_IDS"};
  static constexpr std::array<std::string_view, 4> kXgboost = {
      "DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_NUM_WORKER", "DMLC_TASK_ID"};
  static constexpr std::array<std::string_view, 4> kMegatron = {
      "PAI_TENSOR_PARALLEL_SIZE", "PAI_PIPELINE_PARALLEL_SIZE", "PAI_CONTEXT_PARALLEL_SIZE",
      "PAI_DATA_PARALLEL_SIZE"};
  const auto in = [&](const auto& names) {
    for (std::string_view n : names) {
      if (n == name) return true;
    }
    return false;
  };
  switch (framework) {
    case Framework::Jax:
      return in(kJax);
    case Framework::Ray:
      return name == "RAY_ADDRESS";
    case Framework::XGBoost:
      return in(kXgboost);
    case Framework::Megatron:
      return in(kMegatron);
    default:
      return false;
  }
}

}  // namespace pai
