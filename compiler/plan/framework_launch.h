// The launch shapes of the framework presets (docs/frameworks.md): what a role's processes
// run besides the user's command, rendered into the plan so that every launcher runs the
// same argv.
#pragma once

#include <string>
#include <vector>

#include "compiler/spec/spec.h"
#include "libpai/plan.h"

namespace pai {

/// Before placement: the ports and completion a framework needs. ray: the head's "ray" port
/// (its GCS; RAY_ADDRESS), with `ray.entrypoint: submit` a "dashboard" port, and the head's
/// minSucceeded 1, so the job ends when the entrypoint does. xgboost: a "tracker" port on the
/// master role (DMLC_TRACKER_PORT). A label the spec already gives is kept as it is.
void add_framework_needs(Plan& plan, const RaySpec& ray);

/// What `role`'s processes run before the runtime wraps it:
///   ray head:   sh -c SCRIPT: `ray start --head --port=... --num-gpus=G [--num-cpus=C] --block`
///               in the background, the entrypoint once the head answers (`ray job submit
///               -- CMD` with ray.entrypoint submit), then `ray stop`; the entrypoint's exit
///               code is the instance's.
///   ray worker: sh -c SCRIPT: wait for the head (at most 600 s), then `exec ray start
///               --address=$RAY_ADDRESS --num-gpus=G [--num-cpus=C] --block`.
///   xgboost:    on the master role, sh -c SCRIPT: the process with DMLC_TASK_ID 0 starts the
///               Rabit tracker (xgboost.tracker.RabitTracker) in the background, then every
///               process execs its command.
///   otherwise:  role.command.
std::vector<std::string> framework_command(const Plan& plan, const Role& role, const RaySpec& ray);

}  // namespace pai
