#include "compiler/plan/runtime_wrap.h"

#include <charconv>
#include <string>
#include <vector>

#include "libpai/env_contract.h"

namespace pai {
namespace {

Placement unplaced_instance(const Plan& plan, const Role& role) {
  Placement p;
  p.role = role.name;
  for (std::size_t i = 0; i < plan.roles.size(); ++i) {
    if (plan.roles[i].name == role.name) p.role_index = static_cast<int>(i);
  }
  for (const PortRequest& request : role.ports) {
    p.ports[request.label] = std::vector<int>(static_cast<std::size_t>(request.count), 0);
  }
  return p;
}

// Shortest spelling that reads back as the same double: 96 -> "96", 0.5 -> "0.5".
std::string format_number(double v) {
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::string mount_spec(const Mount& m) {
  std::string s = m.source + ":" + m.target;
  if (m.read_only) s += ":ro";
  return s;
}

std::vector<std::string> docker_argv(const Plan& plan, const Role& role) {
  const Resources& r = role.resources;
  std::vector<std::string> argv = {"docker",         "run",       "--rm", "--init",
                                   "--network=host", "--ipc=host"};
  if (r.gpu > 0) argv.insert(argv.end(), {"--gpus", "all"});
  if (r.shm_bytes > 0) argv.push_back("--shm-size=" + std::to_string(r.shm_bytes));
  if (r.memory_bytes > 0) argv.push_back("--memory=" + std::to_string(r.memory_bytes));
  if (r.cpu > 0) argv.push_back("--cpus=" + format_number(r.cpu));
  for (const Mount& m : plan.mounts) argv.insert(argv.end(), {"-v", mount_spec(m)});
  if (!plan.output.empty()) argv.insert(argv.end(), {"-v", plan.output + ":" + plan.output});
  if (!role.working_dir.empty()) argv.insert(argv.end(), {"-w", role.working_dir});
  for (std::string& name : role_env_names(plan, role)) {
    argv.push_back("-e");
    argv.push_back(std::move(name));
  }
  const std::string run_dir = kLauncherRunDir;
  argv.insert(argv.end(), {"-v", run_dir + ":" + run_dir, plan.image});
  return argv;
}

std::vector<std::string> apptainer_argv(const Plan& plan, const Role& role) {
  std::vector<std::string> argv = {"apptainer", "exec"};
  if (role.resources.gpu > 0) argv.push_back("--nv");
  for (const Mount& m : plan.mounts) argv.insert(argv.end(), {"--bind", mount_spec(m)});
  // Checkpoints go under the output folder, which apptainer does not bind by itself.
  if (!plan.output.empty()) argv.insert(argv.end(), {"--bind", plan.output});
  argv.insert(argv.end(), {"--bind", kLauncherRunDir});
  if (!role.working_dir.empty()) argv.insert(argv.end(), {"--pwd", role.working_dir});
  argv.push_back(plan.image);
  return argv;
}

}  // namespace

std::vector<std::string> role_env_names(const Plan& plan, const Role& role) {
  // Non-empty values make process_env() include the optional variables: only the launcher
  // knows their values, but docker must be told to forward them.
  ProcessContext ctx;
  ctx.control_socket = "-";
  ctx.telemetry_file = "-";
  ctx.telemetry_peers_file = "-";
  ctx.latest_checkpoint = "-";
  ctx.hostfile = "-";
  ctx.rsh_agent = "-";
  ctx.user_name = "-";
  const Placement* placed = find_placement(plan, role.name, 0);
  const Placement instance = placed ? *placed : unplaced_instance(plan, role);
  std::vector<std::string> names;
  for (auto& [name, value] : process_env(plan, instance, 0, ctx)) names.push_back(std::move(name));
  return names;
}

std::vector<std::string> wrap_command(const Plan& plan, const Role& role) {
  std::vector<std::string> argv;
  switch (plan.runtime) {
    case Runtime::Host:
      return role.command;
    case Runtime::Docker:
      argv = docker_argv(plan, role);
      break;
    case Runtime::Apptainer:
      argv = apptainer_argv(plan, role);
      break;
  }
  argv.insert(argv.end(), role.command.begin(), role.command.end());
  return argv;
}

}  // namespace pai
