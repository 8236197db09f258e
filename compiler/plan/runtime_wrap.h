// Wrapping a role's command in its container runtime (docker run ... / apptainer exec ...).
#pragma once

#include <string>
#include <vector>

#include "libpai/plan.h"

namespace pai {

/// Names of the env-contract variables the processes of `role` receive, in contract order:
/// those of process_env() for the role's instance 0 and local rank 0, with a ProcessContext
/// that sets every optional variable (control socket, telemetry ring, latest checkpoint,
/// hostfile, rsh agent).
/// Uses the instance's placement when `plan` is placed, else an unplaced instance 0 of the role.
std::vector<std::string> role_env_names(const Plan& plan, const Role& role);

/// The argv the launcher executes for `role`: `role.command` wrapped for `plan.runtime`.
///   host:      the command as is.
///   docker:    docker run --rm --init --network=host --ipc=host [--gpus all]
///              [--shm-size=BYTES] [--memory=BYTES] [--cpus=N] [-v SRC:DST[:ro]]...
///              [-v OUTPUT:OUTPUT] [-w DIR] [-e NAME]... -v /tmp/pai:/tmp/pai IMAGE command...
///              where each NAME is one of role_env_names() (docker forwards the value the
///              launcher sets). Optional flags appear when the resource/field is set.
///   apptainer: apptainer exec [--nv] [--bind SRC:DST[:ro]]... [--bind OUTPUT]
///              --bind /tmp/pai [--pwd DIR] IMAGE command...
///              (apptainer passes the environment through by default).
/// --gpus all and --nv appear when resources.gpu > 0.
std::vector<std::string> wrap_command(const Plan& plan, const Role& role);

}  // namespace pai
