#include "compiler/spec/framework_rules.h"

#include <string>

#include "compiler/document/field_reader.h"
#include "libpai/python_command.h"

namespace pai {
namespace {

class FrameworkRules {
 public:
  FrameworkRules(const JobSpec& spec, Diagnostics& diags) : spec_(spec), diags_(diags) {}

  void check_ray();
  void check_megatron();
  void check_master_store();
  void check_warm_start();

 private:
  void error(const std::string& path, const std::string& message) {
    diags_.error(spec_.where(path), path, message);
  }

  const JobSpec& spec_;
  Diagnostics& diags_;
};

void FrameworkRules::check_master_store() {
  const Plan& job = spec_.job;
  if (job.master_store != MasterStore::Launcher) return;
  if (job.framework != Framework::PyTorch && job.framework != Framework::DeepSpeed &&
      job.framework != Framework::Megatron && job.framework != Framework::Custom) {
    error("masterStore", std::string("masterStore launcher serves torch's TCPStore on "
                                     "MASTER_PORT for ranks that meet through torch.distributed's "
                                     "env://; framework ") +
                             to_string(job.framework) + " does not");
  }
  for (const Role& role : job.roles) {
    if (role.env_convention != EnvConvention::PerNode) continue;
    error("roles." + role.name + ".envConvention",
          "masterStore launcher: the perNode command" +
              std::string(role.nproc_per_node == 1 ? " (the default of nprocPerNode 1)" : "") +
              " may run a torchrun of its own, whose store needs MASTER_PORT; set envConvention "
              "perProcess or torchrun");
  }
}

void FrameworkRules::check_warm_start() {
  const WarmStart& warm = spec_.job.fault_tolerance.warm_start;
  const std::string path = "faultTolerance.warmStart";
  if (warm.roles.empty() && !warm.preload.empty()) {
    error(path + ".roles", "warmStart preloads modules but names no role to start warm");
  }
  for (std::size_t i = 0; i < warm.roles.size(); ++i) {
    const std::string at = path + ".roles[" + std::to_string(i) + "]";
    const Role* role = find_role(spec_.job, warm.roles[i]);
    if (role == nullptr) {
      error(at, "no role is named " + quote(warm.roles[i]));
      continue;
    }
    std::string why;
    if (spec_.job.runtime != Runtime::Host) {
      error(at, "role " + quote(role->name) + " cannot start warm: runtime " +
                    to_string(spec_.job.runtime) +
                    " starts each rank through its container's wrapper, which cannot be forked "
                    "warm; warm starts need runtime host");
    } else if (!parse_python_command(role->command, &why)) {
      error(at, "role " + quote(role->name) + " cannot start warm: " + why +
                    " (give the command as a list: [python3, train.py, ...])");
    }
  }
  for (std::size_t i = 0; i < warm.preload.size(); ++i) {
    if (!is_python_module_name(warm.preload[i])) {
      error(path + ".preload[" + std::to_string(i) + "]",
            quote(warm.preload[i]) +
                " is not a Python module name (like torch or "
                "torch.distributed)");
    }
  }
}

void FrameworkRules::check_ray() {
  const Plan& job = spec_.job;
  const Role* head = find_role(job, "head");
  if (head == nullptr) {
    error("roles",
          "framework ray needs a role named \"head\": the Ray head, which runs the "
          "entrypoint (its command)");
  } else {
    if (head->instances != 1) {
      error("roles.head.instances",
            "the Ray head has one instance, got " + std::to_string(head->instances));
    }
    if (job.master_role != "head") {
      error("masterRole",
            "the master role of a ray job is its head, not " + quote(job.master_role));
    }
  }
  for (const Role& role : job.roles) {
    const std::string path = "roles." + role.name;
    if (role.nproc_per_node != 1) {
      error(path + ".nprocPerNode",
            "a Ray node runs one `ray start` and Ray starts its workers: nprocPerNode must be 1, "
            "got " +
                std::to_string(role.nproc_per_node) +
                " (resources.gpu and resources.cpu give Ray the node's GPUs and CPUs)");
    }
    if (role.name != "head" && !role.command.empty()) {
      error(path + ".command",
            "a Ray worker runs `ray start --address ... --block`, which pai "
            "renders: it takes no command (the head's command is the "
            "entrypoint)");
    }
  }
}

void FrameworkRules::check_megatron() {
  const Plan& job = spec_.job;
  const Megatron& m = job.megatron;
  long world = 0;
  std::string shape;
  for (const Role& role : job.roles) {
    if (!holds_ranks(job, role)) continue;
    world += static_cast<long>(role.instances) * role.nproc_per_node;
    shape += (shape.empty() ? "" : ", ") + role.name + ": " + std::to_string(role.instances) +
             " x " + std::to_string(role.nproc_per_node);
  }
  const long model =
      static_cast<long>(m.tensor_parallel) * m.pipeline_parallel * m.context_parallel;
  if (world > 0 && world % model != 0) {
    const std::string path = m.tensor_parallel > 1     ? "megatron.tensorParallel"
                             : m.pipeline_parallel > 1 ? "megatron.pipelineParallel"
                                                       : "megatron.contextParallel";
    error(path, "tensorParallel " + std::to_string(m.tensor_parallel) + " x pipelineParallel " +
                    std::to_string(m.pipeline_parallel) + " x contextParallel " +
                    std::to_string(m.context_parallel) + " = " + std::to_string(model) +
                    " does not divide the world size " + std::to_string(world) + " (" + shape +
                    " processes): Megatron-LM needs world size = tensor x pipeline x context x "
                    "data parallel");
    return;
  }
  for (const Role& role : job.roles) {
    if (role.nproc_per_node % m.tensor_parallel != 0) {
      diags_.warning(spec_.where("megatron.tensorParallel"), "megatron.tensorParallel",
                     "tensorParallel " + std::to_string(m.tensor_parallel) +
                         " does not divide roles." + role.name + ".nprocPerNode " +
                         std::to_string(role.nproc_per_node) +
                         ": tensor-parallel groups span nodes, whose links are much slower "
                         "than NVLink");
      break;
    }
  }
}

}  // namespace

void check_framework(const JobSpec& spec, Diagnostics& diags) {
  FrameworkRules rules(spec, diags);
  if (spec.job.framework == Framework::Ray) rules.check_ray();
  if (spec.job.framework == Framework::Megatron) rules.check_megatron();
  rules.check_master_store();
  rules.check_warm_start();
}

}  // namespace pai
