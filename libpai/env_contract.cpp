#include "libpai/env_contract.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include "libpai/env_overlay.h"
#include "libpai/framework_env.h"

namespace pai {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

std::string number(double value) {
  std::array<char, 32> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

// The items, each turned into text by `text`, separated by commas.
template <typename Items, typename Text>
std::string join(const Items& items, Text text) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ',';
    first = false;
    out += text(item);
  }
  return out;
}

std::string port_text(int port) { return std::to_string(port); }
const std::string& same(const std::string& s) { return s; }

// OpenPAI's variables describing one instance: its address and its labelled ports (both
// names hold the label's list, as OpenPAI's runtime exports them: framework_parser.py).
void add_instance_vars(EnvList& env, const Placement& p) {
  std::string suffix = p.role + "_" + std::to_string(p.index);
  env.emplace_back("PAI_HOST_IP_" + suffix, p.host.address);
  for (const auto& [label, ports] : p.ports) {
    const std::string list = join(ports, port_text);
    env.emplace_back("PAI_PORT_LIST_" + suffix + "_" + label, list);
    env.emplace_back("PAI_" + suffix + "_" + label + "_PORT", list);
  }
}

// An instance as PAI_TASK_ROLE_<role>_HOST_LIST lists it: "address:port" with OpenPAI's
// port, the first `http` port (which OpenPAI gives every task role), else the instance's
// first port (labels in name order); the bare address when it has no port.
std::string host_list_item(const Placement& p) {
  auto it = p.ports.find("http");
  if (it == p.ports.end() || it->second.empty()) {
    it = std::find_if(p.ports.begin(), p.ports.end(),
                      [](const auto& label) { return !label.second.empty(); });
  }
  if (it == p.ports.end()) return p.host.address;
  return p.host.address + ":" + std::to_string(it->second.front());
}

// The names OpenPAI's runtime still exports for jobs written for its first versions.
void add_openpai_legacy_job_vars(EnvList& env, const Plan& plan) {
  const std::string roles = std::to_string(plan.roles.size());
  env.emplace_back("PAI_JOB_TASK_COUNT", std::to_string(plan.nodes));
  env.emplace_back("PAI_TASKS_NUM", std::to_string(plan.nodes));
  env.emplace_back("PAI_JOB_TASK_ROLE_COUNT", roles);
  env.emplace_back("PAI_TASK_ROLES_NUM", roles);
  env.emplace_back(
      "PAI_JOB_TASK_ROLE_LIST",
      join(plan.roles, [](const Role& role) -> const std::string& { return role.name; }));
}

// OpenPAI's variables about the current container (instance): its address and ports, the
// "http" and "ssh" labels' first ports under their old names.
void add_container_vars(EnvList& env, const Placement& p) {
  env.emplace_back("PAI_CONTAINER_HOST_IP", p.host.address);
  env.emplace_back("PAI_CURRENT_CONTAINER_IP", p.host.address);
  std::string all;
  for (const auto& [label, ports] : p.ports) {
    const std::string list = join(ports, port_text);
    env.emplace_back("PAI_CONTAINER_HOST_" + label + "_PORT_LIST", list);
    all += label + ":" + list + ";";
  }
  env.emplace_back("PAI_CONTAINER_HOST_PORT_LIST", all);
  const auto first = [&](const char* label) {
    const auto it = p.ports.find(label);
    return it == p.ports.end() || it->second.empty() ? std::string()
                                                     : std::to_string(it->second.front());
  };
  if (const std::string http = first("http"); !http.empty()) {
    env.emplace_back("PAI_CONTAINER_HOST_PORT", http);
    env.emplace_back("PAI_CURRENT_CONTAINER_PORT", http);
  }
  if (const std::string ssh = first("ssh"); !ssh.empty()) {
    env.emplace_back("PAI_CONTAINER_SSH_PORT", ssh);
  }
}

bool peers_in_job_env(const Plan& plan) { return plan.nodes <= kOpenPaiPeerEnvMaxInstances; }

void add_fabric_presets(EnvList& env, const Fabric& fabric) {
  if (fabric.type == FabricType::None) return;
  if (fabric.type == FabricType::Roce) {
    if (fabric.traffic_class >= 0)
      env.emplace_back("NCCL_IB_TC", std::to_string(fabric.traffic_class));
    if (fabric.gid_index >= 0)
      env.emplace_back("NCCL_IB_GID_INDEX", std::to_string(fabric.gid_index));
    env.emplace_back("NCCL_CROSS_NIC", "0");
  }
  if (fabric.type == FabricType::Ethernet) env.emplace_back("NCCL_IB_DISABLE", "1");
  if (!fabric.interface.empty()) {
    env.emplace_back("NCCL_SOCKET_IFNAME", fabric.interface);
    env.emplace_back("GLOO_SOCKET_IFNAME", fabric.interface);
  }
  if (fabric.type != FabricType::Ethernet && !fabric.hcas.empty()) {
    env.emplace_back("NCCL_IB_HCA", join(fabric.hcas, same));
  }
}

// What torchrun's agent (torch.distributed.elastic's LocalElasticAgent) adds for its workers,
// besides the ranks: the job's shape and its restart budget under torchelastic's names, and
// the NCCL error handling it turns on unless the role's env says otherwise.
void add_torchelastic_vars(EnvList& env, const Plan& plan, const Role& role) {
  env.emplace_back("GROUP_WORLD_SIZE", std::to_string(plan.nodes));
  env.emplace_back(
      "TORCHELASTIC_MAX_RESTARTS",
      std::to_string(plan.fault_tolerance.restart_enabled ? plan.fault_tolerance.max_restarts : 0));
  env.emplace_back("TORCHELASTIC_RUN_ID", plan.name);
  // With masterStore rank0 the ranks build their own TCPStore on MASTER_ADDR:MASTER_PORT;
  // with launcher, the launcher next to rank 0 serves it (instance_env says so for every
  // convention).
  if (plan.master_store == MasterStore::Rank0) {
    env.emplace_back("TORCHELASTIC_USE_AGENT_STORE", "False");
  }
  // torch >= 2.2 reads the first, older versions the second; torchrun sets the one its torch
  // reads, pai cannot know which torch the script imports.
  for (const char* name : {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"}) {
    if (std::none_of(role.env.begin(), role.env.end(),
                     [&](const auto& kv) { return kv.first == name; })) {
      env.emplace_back(name, "1");
    }
  }
}

const Role& role_of(const Plan& plan, const Placement& placement) {
  if (placement.role_index >= 0 && placement.role_index < static_cast<int>(plan.roles.size()) &&
      plan.roles[static_cast<std::size_t>(placement.role_index)].name == placement.role) {
    return plan.roles[static_cast<std::size_t>(placement.role_index)];
  }
  if (const Role* role = find_role(plan, placement.role)) return *role;
  throw std::invalid_argument("placement names unknown role \"" + placement.role + "\"");
}

}  // namespace

EnvList job_env(const Plan& plan) {
  EnvList env;
  env.emplace_back("PAI_JOB_NAME", plan.name);
  env.emplace_back("PAI_TASK_ROLE_COUNT", std::to_string(plan.roles.size()));
  env.emplace_back(
      "PAI_TASK_ROLE_LIST",
      join(plan.roles, [](const Role& role) -> const std::string& { return role.name; }));
  const bool peers = peers_in_job_env(plan);
  for (const Role& role : plan.roles) {
    env.emplace_back("PAI_TASK_ROLE_TASK_COUNT_" + role.name, std::to_string(role.instances));
    const Resources& r = role.resources;
    env.emplace_back("PAI_RESOURCE_" + role.name, std::to_string(r.gpu) + "," + number(r.cpu) +
                                                      "," + std::to_string(r.memory_bytes / kMiB) +
                                                      "," + std::to_string(r.shm_bytes / kMiB));
    env.emplace_back("PAI_MIN_FAILED_TASK_COUNT_" + role.name,
                     std::to_string(role.completion.min_failed));
    env.emplace_back("PAI_MIN_SUCCEEDED_TASK_COUNT_" + role.name,
                     std::to_string(role.completion.min_succeeded));
  }
  add_openpai_legacy_job_vars(env, plan);
  if (peers) {
    // A host list of thousands of addresses would exceed the kernel's 128 KiB limit on one
    // environment string, so it follows the same threshold as the per-instance variables.
    for (const Role& role : plan.roles) {
      std::vector<const Placement*> instances;
      for (const Placement& p : plan.placements) {
        if (p.role == role.name) instances.push_back(&p);
      }
      env.emplace_back("PAI_TASK_ROLE_" + role.name + "_HOST_LIST",
                       join(instances, [](const Placement* p) { return host_list_item(*p); }));
    }
    for (const Placement& p : plan.placements) add_instance_vars(env, p);
    env.emplace_back("PAI_TASK_ROLE_INSTANCES", join(plan.placements, [](const Placement& p) {
                       return p.role + ":" + std::to_string(p.index);
                     }));
  }
  env.emplace_back("MASTER_ADDR", plan.master.address);
  env.emplace_back("MASTER_PORT", std::to_string(plan.master.port));
  env.emplace_back(
      "PAI_MAX_RESTARTS",
      std::to_string(plan.fault_tolerance.restart_enabled ? plan.fault_tolerance.max_restarts : 0));
  if (!plan.output.empty()) env.emplace_back("PAI_OUTPUT_DIR", plan.output);
  // 0: a plan that was not planned (made in memory); pai-compile's are at least 1 s.
  if (const std::int64_t interval = plan.fault_tolerance.checkpoint_plan.interval_seconds;
      interval > 0) {
    env.emplace_back("PAI_CHECKPOINT_INTERVAL_SECONDS", std::to_string(interval));
  }
  add_fabric_presets(env, plan.fabric);
  overlay_env(env, framework_job_env(plan));
  return env;
}

EnvList instance_env(const Plan& plan, const Placement& placement, const ProcessContext& ctx) {
  const Role& role = role_of(plan, placement);
  EnvList env;
  // Room for every variable below, so that the list is not moved as it grows (an env script
  // is made of one per instance).
  env.reserve(role.env.size() + 48 + 3 * placement.ports.size());
  env.assign(role.env.begin(), role.env.end());
  const std::string node_rank = std::to_string(placement.node_rank);
  const std::string nproc = std::to_string(role.nproc_per_node);
  const bool per_node = role.env_convention == EnvConvention::PerNode;
  const bool torchrun = role.env_convention == EnvConvention::Torchrun;
  // DLC/ACP: a perNode command runs its own `torchrun --nproc_per_node=$NPROC_PER_NODE`, so
  // one launcher process per node must still announce one worker per GPU.
  const bool gpus_per_node = per_node && role.nproc_per_node == 1 && role.resources.gpu > 0;
  // torchrun's workers see no NODE_RANK, NNODES or NPROC_PER_NODE: a script that reads them
  // must behave under pai as under torchrun.
  if (!torchrun) env.emplace_back("NODE_RANK", node_rank);
  env.emplace_back("GROUP_RANK", node_rank);
  if (!torchrun) {
    env.emplace_back("NNODES", std::to_string(plan.nodes));
    env.emplace_back("NPROC_PER_NODE", gpus_per_node ? std::to_string(role.resources.gpu) : nproc);
  }
  env.emplace_back("LOCAL_WORLD_SIZE", nproc);
  env.emplace_back("ROLE_NAME", role.name);
  env.emplace_back(
      "ROLE_WORLD_SIZE",
      std::to_string(per_node ? static_cast<std::int64_t>(role.instances)
                              : static_cast<std::int64_t>(role.instances) * role.nproc_per_node));
  if (torchrun) add_torchelastic_vars(env, plan, role);
  // torch.distributed's env:// then connects every rank, rank 0 too, as a client of the store
  // the launcher next to rank 0 serves, under the prefix of TORCHELASTIC_RESTART_COUNT.
  if (plan.master_store == MasterStore::Launcher) {
    env.emplace_back("TORCHELASTIC_USE_AGENT_STORE", "True");
  }
  if (per_node) {
    env.emplace_back("WORLD_SIZE", std::to_string(plan.nodes));
    env.emplace_back("RANK", node_rank);
    // torchrun reads its flags' defaults from PET_<FLAG>, so a bare `torchrun train.py` in a
    // perNode command spans the job as `torchrun --nnodes=$NNODES --node_rank=$NODE_RANK
    // --nproc_per_node=$NPROC_PER_NODE` would. perProcess roles don't get them: pai-launch
    // already is their torchrun, and one inside a rank would start a second level of workers.
    const std::string master_port = std::to_string(plan.master.port);
    env.emplace_back("PET_NNODES", std::to_string(plan.nodes));
    env.emplace_back("PET_NODE_RANK", node_rank);
    env.emplace_back("PET_NPROC_PER_NODE",
                     gpus_per_node ? std::to_string(role.resources.gpu) : nproc);
    env.emplace_back("PET_MASTER_ADDR", plan.master.address);
    env.emplace_back("PET_MASTER_PORT", master_port);
  }
  env.emplace_back("PAI_CURRENT_TASK_ROLE_NAME", role.name);
  env.emplace_back("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", std::to_string(placement.index));
  if (!peers_in_job_env(plan)) add_instance_vars(env, placement);
  add_container_vars(env, placement);
  if (!ctx.user_name.empty()) {
    env.emplace_back("PAI_USER_NAME", ctx.user_name);
    env.emplace_back("PAI_USERNAME", ctx.user_name);
    // OpenPAI's FrameworkController name, "<user>~<job>": an OpenPAI job file's own name
    // where pai's had to differ (PAI_OPENPAI_JOB_NAME).
    const auto openpai_name = std::find_if(role.env.begin(), role.env.end(), [](const auto& kv) {
      return kv.first == "PAI_OPENPAI_JOB_NAME";
    });
    env.emplace_back(
        "PAI_FRAMEWORK_NAME",
        ctx.user_name + "~" + (openpai_name == role.env.end() ? plan.name : openpai_name->second));
  }
  const std::string restarts = std::to_string(ctx.restart_count);
  env.emplace_back("PAI_RESTART_COUNT", restarts);
  env.emplace_back("TORCHELASTIC_RESTART_COUNT", restarts);
  if (!ctx.control_socket.empty()) env.emplace_back("PAI_CONTROL_SOCKET", ctx.control_socket);
  if (!ctx.latest_checkpoint.empty()) {
    env.emplace_back("PAI_LATEST_CHECKPOINT", ctx.latest_checkpoint);
  }
  if (plan.fault_tolerance.diagnosis.nccl_profiler && !ctx.nccl_profiler.empty() &&
      std::none_of(role.env.begin(), role.env.end(),
                   [](const auto& kv) { return kv.first == "NCCL_PROFILER_PLUGIN"; })) {
    env.emplace_back("NCCL_PROFILER_PLUGIN", ctx.nccl_profiler);
  }
  if (!ctx.coordinator.empty()) env.emplace_back("PAI_COORDINATOR", ctx.coordinator);
  if (!ctx.token_file.empty()) env.emplace_back("PAI_TOKEN_FILE", ctx.token_file);
  if (plan.framework == Framework::Mpi) {
    if (!ctx.hostfile.empty()) env.emplace_back("OMPI_MCA_orte_default_hostfile", ctx.hostfile);
    if (!ctx.rsh_agent.empty()) {
      env.emplace_back("OMPI_MCA_plm_rsh_agent", ctx.rsh_agent);
      // Every orted is started by mpirun's node through the agent (a remote orted has no
      // coordinator credentials to start others), and stays attached to that session, so
      // the launcher that ran it sees it end.
      env.emplace_back("OMPI_MCA_plm_rsh_no_tree_spawn", "1");
      env.emplace_back("OMPI_MCA_orte_leave_session_attached", "1");
    }
  }
  return env;
}

EnvList rank_env(const Plan& plan, const Placement& placement, int local_rank) {
  const Role& role = role_of(plan, placement);
  EnvList env;
  env.reserve(4);
  if (role.env_convention == EnvConvention::PerNode) {
    env.emplace_back("LOCAL_RANK", std::to_string(local_rank));
    env.emplace_back("ROLE_RANK", std::to_string(placement.index));
    return env;
  }
  env.emplace_back("RANK", std::to_string(placement.first_rank + local_rank));
  env.emplace_back("LOCAL_RANK", std::to_string(local_rank));
  env.emplace_back("WORLD_SIZE", std::to_string(plan.world_size));
  env.emplace_back("ROLE_RANK", std::to_string(placement.first_role_rank + local_rank));
  return env;
}

EnvList process_env(const Plan& plan, const Placement& placement, int local_rank,
                    const ProcessContext& ctx) {
  EnvList env = job_env(plan);
  overlay_env(env, instance_env(plan, placement, ctx));
  overlay_env(env, rank_env(plan, placement, local_rank));
  overlay_env(env, framework_rank_env(plan, placement, local_rank));
  if (!ctx.telemetry_file.empty()) overlay_env(env, {{"PAI_TELEMETRY_FILE", ctx.telemetry_file}});
  if (!ctx.telemetry_peers_file.empty()) {
    overlay_env(env, {{"PAI_TELEMETRY_PEERS_FILE", ctx.telemetry_peers_file}});
  }
  if (!ctx.error_file.empty() &&
      role_of(plan, placement).env_convention == EnvConvention::Torchrun) {
    overlay_env(env, {{"TORCHELASTIC_ERROR_FILE", ctx.error_file}});
  }
  return env;
}

bool is_reserved_env_name(const std::string& name) {
  static constexpr std::array<std::string_view, 39> kExact = {"RANK",
                                                              "WORLD_SIZE",
                                                              "LOCAL_RANK",
                                                              "LOCAL_WORLD_SIZE",
                                                              "NODE_RANK",
                                                              "GROUP_RANK",
                                                              "ROLE_RANK",
                                                              "ROLE_NAME",
                                                              "ROLE_WORLD_SIZE",
                                                              "NNODES",
                                                              "NPROC_PER_NODE",
                                                              "PET_NNODES",
                                                              "PET_NODE_RANK",
                                                              "PET_NPROC_PER_NODE",
                                                              "PET_MASTER_ADDR",
                                                              "PET_MASTER_PORT",
                                                              "MASTER_ADDR",
                                                              "MASTER_PORT",
                                                              "PAI_RESTART_COUNT",
                                                              "TORCHELASTIC_RESTART_COUNT",
                                                              "PAI_MAX_RESTARTS",
                                                              "PAI_CONTROL_SOCKET",
                                                              "PAI_TELEMETRY_FILE",
                                                              "PAI_TELEMETRY_PEERS_FILE",
                                                              "PAI_LATEST_CHECKPOINT",
                                                              "PAI_COORDINATOR",
                                                              "PAI_TOKEN_FILE",
                                                              "PAI_JOB_NAME",
                                                              "PAI_OUTPUT_DIR",
                                                              "PAI_CHECKPOINT_INTERVAL_SECONDS",
                                                              "PAI_TASK_ROLE_COUNT",
                                                              "PAI_USER_NAME",
                                                              "PAI_USERNAME",
                                                              "PAI_FRAMEWORK_NAME",
                                                              "PAI_JOB_TASK_COUNT",
                                                              "PAI_TASKS_NUM",
                                                              "PAI_JOB_TASK_ROLE_COUNT",
                                                              "PAI_TASK_ROLES_NUM",
                                                              "PAI_JOB_TASK_ROLE_LIST"};
  static constexpr std::array<std::string_view, 10> kPrefixes = {"PAI_TASK_ROLE_",
                                                                 "PAI_HOST_IP_",
                                                                 "PAI_PORT_LIST_",
                                                                 "PAI_CURRENT_TASK_ROLE_",
                                                                 "PAI_RESOURCE_",
                                                                 "PAI_TASK_ROLE_TASK_COUNT_",
                                                                 "PAI_CONTAINER_",
                                                                 "PAI_CURRENT_CONTAINER_",
                                                                 "PAI_MIN_FAILED_TASK_COUNT_",
                                                                 "PAI_MIN_SUCCEEDED_TASK_COUNT_"};
  std::string_view n = name;
  for (std::string_view exact : kExact) {
    if (n == exact) return true;
  }
  for (std::string_view prefix : kPrefixes) {
    if (n.starts_with(prefix)) return true;
  }
  // PAI_<role>_<index>_<label>_PORT
  if (n.starts_with("PAI_") && n.ends_with("_PORT")) {
    std::string_view middle = n.substr(4, n.size() - 4 - 5);
    for (std::size_t i = 0; i < middle.size(); ++i) {
      if (middle[i] != '_' || i + 1 >= middle.size()) continue;
      std::size_t j = i + 1;
      while (j < middle.size() && middle[j] >= '0' && middle[j] <= '9') ++j;
      if (j > i + 1 && j < middle.size() && middle[j] == '_' && i > 0 && j + 1 < middle.size())
        return true;
    }
  }
  return false;
}

bool is_reserved_env_name(const std::string& name, const Plan& plan) {
  if (is_reserved_env_name(name) || is_framework_env_name(plan.framework, name)) return true;
  // torchrun's own names are the contract's only in a job that has a torchrun role (and the
  // agent store's in a job whose launcher serves it).
  if (name == "TORCHELASTIC_USE_AGENT_STORE" && plan.master_store == MasterStore::Launcher) {
    return true;
  }
  static constexpr std::array<std::string_view, 5> kTorchrun = {
      "GROUP_WORLD_SIZE", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
      "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE"};
  const bool torchrun = std::any_of(plan.roles.begin(), plan.roles.end(), [](const Role& r) {
    return r.env_convention == EnvConvention::Torchrun;
  });
  return torchrun && std::find(kTorchrun.begin(), kTorchrun.end(), name) != kTorchrun.end();
}

}  // namespace pai
