#include "compiler/spec/framework_rules.h"

#include <string>

#include "compiler/document/field_reader.h"

namespace pai {
namespace {

class FrameworkRules {
 public:
  FrameworkRules(const JobSpec& spec, Diagnostics& diags) : spec_(spec), diags_(diags) {}

  void check_ray();
  void check_megatron();
  void check_master_store();

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
}

}  // namespace pai
