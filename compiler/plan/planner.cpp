#include "compiler/plan/planner.h"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "compiler/plan/checkpoint_planner.h"
#include "compiler/plan/framework_launch.h"
#include "compiler/plan/runtime_wrap.h"
#include "libpai/placement.h"

namespace pai {
namespace {

// The field the user must change when place() refuses the plan: no instances, too few
// hosts, an unknown coordinator host, or an exhausted port range.
std::string blamed_field(const Plan& plan) {
  std::size_t instances = 0;
  for (const Role& role : plan.roles) instances += static_cast<std::size_t>(role.instances);
  if (instances == 0) return "roles";
  if (instances > plan.hosts.size()) return "hosts";
  if (!plan.coordinator_host.empty()) {
    bool known = false;
    for (const Host& host : plan.hosts) known = known || host.name == plan.coordinator_host;
    if (!known) return "coordinator.host";
  }
  return "portRange";
}

}  // namespace

Plan make_plan(const JobSpec& spec, Diagnostics& diags) {
  Plan plan = spec.job;
  plan.compiler = "pai-compile " PAI_VERSION;
  add_framework_needs(plan, spec.ray);
  try {
    place(plan, plan.hosts);
  } catch (const std::invalid_argument& e) {
    const std::string path = blamed_field(plan);
    diags.error(spec.where(path), path, e.what());
  }
  std::vector<std::string> history_warnings;
  plan_checkpoints(plan, spec.locations.count("faultTolerance.checkpointPlan.nodeMtbf") > 0,
                   &history_warnings);
  if (!history_warnings.empty()) {
    // One warning for all: a history of many torn or foreign lines is one problem.
    diags.warning(spec.where("sanityCheck.history.dir"), "sanityCheck.history.dir",
                  "the checkpoint plan skipped " + std::to_string(history_warnings.size()) +
                      (history_warnings.size() == 1 ? " line" : " lines") +
                      " of the node histories; the first: " + history_warnings.front());
  }
  // After placement, so that docker's -e list names the instance's real ports and peers.
  for (Role& role : plan.roles) {
    Role shaped = role;
    shaped.command = framework_command(plan, role, spec.ray);
    role.launch_argv = wrap_command(plan, shaped);
  }
  return plan;
}

}  // namespace pai
