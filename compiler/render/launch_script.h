// launch.sh: starts pai-launch on every host of a plan, for people who hand-run a job.
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai {

/// A POSIX sh script to be run from (or as a path into) the plan folder:
///   ./launch.sh [ssh|pdsh|local]          (default ssh)
/// It starts one `pai-launch run --plan PLAN_DIR/plan.json --node NAME --token-file
/// PLAN_DIR/job.token` per host — placement hosts deduplicated in placement order, then
/// the spares, which wait as standby — and exits 1 if any launcher failed, 2 on a usage
/// error, else 0.
///   ssh:   `ssh -o BatchMode=yes -- ADDRESS 'remote command' &` per host, then waits.
///   pdsh:  one `pdsh -S -w ^HOSTLIST 'remote command'` without --node: pdsh runs the same
///          command everywhere, so each launcher identifies its node by hostname/address.
///   local: every launcher on this machine, each with --node NAME.
/// Environment overrides: PAI_LAUNCH (the launcher program, one word; default pai-launch)
/// and PAI_REMOTE_DIR (where the plan folder lies on the hosts; default the folder's
/// absolute path here). Every value from the plan is quoted with shell_quote(), and the
/// runtime values are quoted again for the remote shell.
std::string render_launch_script(const Plan& plan);

}  // namespace pai
