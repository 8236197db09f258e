#include "libpai/plan.h"

namespace pai {

const char* to_string(Runtime v) {
  switch (v) {
    case Runtime::Host:
      return "host";
    case Runtime::Docker:
      return "docker";
    case Runtime::Apptainer:
      return "apptainer";
  }
  return "host";
}

const char* to_string(Framework v) {
  switch (v) {
    case Framework::PyTorch:
      return "pytorch";
    case Framework::Mpi:
      return "mpi";
    case Framework::TensorFlow:
      return "tensorflow";
    case Framework::DeepSpeed:
      return "deepspeed";
    case Framework::Custom:
      return "custom";
  }
  return "custom";
}

const char* to_string(FabricType v) {
  switch (v) {
    case FabricType::None:
      return "none";
    case FabricType::Roce:
      return "roce";
    case FabricType::Ib:
      return "ib";
    case FabricType::Ethernet:
      return "ethernet";
  }
  return "none";
}

const char* to_string(EnvConvention v) {
  switch (v) {
    case EnvConvention::PerProcess:
      return "perProcess";
    case EnvConvention::PerNode:
      return "perNode";
  }
  return "perNode";
}

const char* to_string(FaultToleranceMode v) {
  switch (v) {
    case FaultToleranceMode::Sync:
      return "sync";
    case FaultToleranceMode::Async:
      return "async";
  }
  return "sync";
}

const char* to_string(RestartPolicy v) {
  switch (v) {
    case RestartPolicy::ExitCodeAndErrorMsg:
      return "exitCodeAndErrorMsg";
    case RestartPolicy::ExitCode:
      return "exitCode";
    case RestartPolicy::OnFailure:
      return "onFailure";
    case RestartPolicy::Never:
      return "never";
  }
  return "never";
}

const char* to_string(Inventory v) {
  switch (v) {
    case Inventory::Static:
      return "static";
    case Inventory::Slurm:
      return "slurm";
  }
  return "static";
}

const Placement* find_placement(const Plan& plan, const std::string& role, int index) {
  // place() lays placements out role by role, so the expected slot is found in
  // O(roles); a plan laid out differently still gets a correct, slower answer.
  std::size_t offset = 0;
  for (const Role& r : plan.roles) {
    if (r.name == role) {
      std::size_t at = offset + static_cast<std::size_t>(index);
      if (index >= 0 && index < r.instances && at < plan.placements.size() &&
          plan.placements[at].role == role && plan.placements[at].index == index) {
        return &plan.placements[at];
      }
      break;
    }
    offset += static_cast<std::size_t>(r.instances > 0 ? r.instances : 0);
  }
  for (const Placement& p : plan.placements) {
    if (p.role == role && p.index == index) return &p;
  }
  return nullptr;
}

const Role* find_role(const Plan& plan, const std::string& name) {
  for (const Role& role : plan.roles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

}  // namespace pai
