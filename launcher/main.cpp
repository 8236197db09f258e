// pai-launch: the per-node launcher. Parses the command line and hands over to a command.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "launcher/commands/check_command.h"
#include "launcher/commands/ctl_command.h"
#include "launcher/commands/job_control_command.h"
#include "launcher/commands/rsh_command.h"
#include "launcher/commands/run_command.h"
#include "libpai/duration.h"

namespace {

using pai::launcher::ControlVerb;
using pai::launcher::JobControlOptions;

// --coordinator and --job, which the control commands share (with --plan and --token-file).
void add_job_flags(CLI::App* cmd, pai::launcher::JobLocator& locator) {
  cmd->add_option("--coordinator", locator.coordinator,
                  "the job's coordinator ADDRESS:PORT (with --token-file and --job)");
  cmd->add_option("--job", locator.job, "the job's name (with --coordinator)");
}

// A job-control subcommand: status, stop, start, kill, logs.
CLI::App* add_control(CLI::App& app, const char* name, const char* what,
                      JobControlOptions& control) {
  auto* cmd = app.add_subcommand(
      name, std::string(what) +
                " (the job: --plan, or --coordinator/--token-file/--job, or inside a job its "
                "environment)");
  cmd->add_option("--plan", control.locator.plan_path,
                  "plan.json of the job (its coordinator; job.token next to it)");
  cmd->add_option("--token-file", control.locator.token_file, "the job token (job.token)");
  add_job_flags(cmd, control.locator);
  return cmd;
}

int usage(const std::string& text) {
  std::fprintf(stderr, "pai-launch: error: %s\n", text.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // rsh is called like ssh, with ssh's options (Open MPI's agent): it parses them itself.
  if (argc >= 2 && std::strcmp(argv[1], "rsh") == 0) {
    return pai::launcher::rsh_command(std::vector<std::string>(argv + 2, argv + argc));
  }

  CLI::App app{"pai-launch: start, supervise and restart the processes of a pai job on this node"};
  app.set_version_flag("--version", std::string("pai-launch ") + PAI_VERSION);
  app.require_subcommand(1);

  pai::launcher::RunOptions run;
  JobControlOptions control;
  std::string node;
  int node_rank = -1;
  auto* run_cmd = app.add_subcommand(
      "run",
      "run this node's instance of a compiled job; with -- CMD...: run CMD on every node of a "
      "running job");
  run_cmd->add_option("--plan", run.plan_path, "plan.json written by pai-compile");
  auto* node_opt = run_cmd->add_option("--node", node, "this node's host name in the plan");
  run_cmd->add_option("--node-rank", node_rank, "this node's instance index in the plan")
      ->excludes(node_opt);
  run_cmd->add_option("--token-file", run.token_file, "the job token (job.token)");
  run_cmd->add_option("--log-dir", run.log_dir,
                      "log directory (default: <output>/logs, else logs/ next to the plan)");
  run_cmd->add_flag("--slurm", run.slurm,
                    "take the hosts from the Slurm allocation (SLURM_JOB_NODELIST, SLURM_NODEID)");
  std::string rendezvous_timeout = "5m";
  run_cmd
      ->add_option("--rendezvous-timeout", rendezvous_timeout,
                   "multi-node: how long to wait for every instance (90s, 5m, ...)")
      ->capture_default_str();
  int heartbeat_ms = 1000;
  run_cmd
      ->add_option("--heartbeat-interval-ms", heartbeat_ms,
                   "multi-node: heartbeat interval; a peer silent for 5 intervals is lost")
      ->check(CLI::Range(10, 60000))
      ->capture_default_str();
  add_job_flags(run_cmd, control.locator);
  run_cmd->add_option("command", control.command,
                      "a command to run on every node of the running job (after --)");

  std::vector<std::string> words;
  auto* ctl_cmd = app.add_subcommand(
      "ctl",
      "talk to this process's launcher: notify TEXT | progress STEP | hang-interval D|default");
  ctl_cmd->add_option("request", words, "the request and its arguments")->required();
  ctl_cmd->allow_extras(false);

  pai::launcher::CheckCommandOptions check;
  auto* check_cmd = app.add_subcommand("check", "run the sanity checks on this node alone");
  check_cmd->add_option("--plan", check.plan_path, "plan.json written by pai-compile")->required();
  auto* check_node = check_cmd->add_option("--node", node, "this node's host name in the plan");
  check_cmd->add_option("--node-rank", node_rank, "this node's instance index in the plan")
      ->excludes(check_node);
  check_cmd
      ->add_option("--only", check.only, "checks to run (gpu,burn,nccl,network,mounts,disk,custom)")
      ->delimiter(',');
  check_cmd->add_flag("--json", check.json, "print the results as JSON");

  auto* status_cmd =
      add_control(app, "status", "show the nodes, ranks, states and restarts of a job", control);
  status_cmd->add_flag("--json", control.json, "print the coordinator's status message as JSON");
  auto* stop_cmd = add_control(app, "stop", "pause a job: stop every instance", control);
  auto* start_cmd = add_control(app, "start", "resume a job stopped by stop", control);
  auto* kill_cmd = add_control(
      app, "kill", "kill an instance's processes as a failure (policy applies)", control);
  kill_cmd->add_option("instance", control.instance, "the instance: ROLE-INDEX, e.g. worker-1")
      ->required();
  auto* logs_cmd = add_control(app, "logs", "print the ranks' logs of a job", control);
  logs_cmd->add_flag("--follow,-f", control.follow, "keep printing output as it comes");
  logs_cmd->add_option("--rank", control.rank, "one rank only (default: every rank)");
  logs_cmd->add_option("--tail", control.tail, "bytes of each rank's log to start with")
      ->capture_default_str();
  // Listed for --help; main() hands `rsh` over before CLI11 sees it.
  app.add_subcommand("rsh",
                     "Open MPI's remote shell agent: rsh [ssh options] HOST COMMAND... runs "
                     "COMMAND on a node of the running job")
      ->allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*run_cmd && !control.command.empty()) {
    for (const char* flag : {"--node", "--node-rank", "--log-dir", "--slurm",
                             "--rendezvous-timeout", "--heartbeat-interval-ms"}) {
      if (run_cmd->count(flag) > 0) {
        return usage(std::string(flag) + " is for running a node of a job; with a command, " +
                     "run runs it on every node of a running job");
      }
    }
    control.verb = ControlVerb::Run;
    control.locator.plan_path = run.plan_path;
    control.locator.token_file = run.token_file;
    return pai::launcher::job_control_command(control);
  }
  if (*run_cmd) {
    if (run_cmd->count("--coordinator") > 0 || run_cmd->count("--job") > 0) {
      return usage("--coordinator and --job go with a command: pai-launch run ... -- CMD...");
    }
    if (run.plan_path.empty()) return usage("run: --plan is required");
    if (!node.empty()) run.node = node;
    if (run_cmd->count("--node-rank") > 0) run.node_rank = node_rank;
    std::string error;
    const auto seconds = pai::parse_duration(rendezvous_timeout, &error);
    if (!seconds || *seconds == 0) {
      std::fprintf(stderr, "pai-launch: error: --rendezvous-timeout %s: %s\n",
                   rendezvous_timeout.c_str(), seconds ? "must be more than 0" : error.c_str());
      return 2;
    }
    run.rendezvous_timeout = std::chrono::seconds(*seconds);
    run.heartbeat_interval = std::chrono::milliseconds(heartbeat_ms);
    return pai::launcher::run_command(run);
  }
  if (*check_cmd) {
    if (!node.empty()) check.node.name = node;
    if (check_cmd->count("--node-rank") > 0) check.node.node_rank = node_rank;
    return pai::launcher::run_check_command(check);
  }
  if (*ctl_cmd) return pai::launcher::ctl_command(words);
  const std::pair<CLI::App*, ControlVerb> verbs[] = {{status_cmd, ControlVerb::Status},
                                                     {stop_cmd, ControlVerb::Stop},
                                                     {start_cmd, ControlVerb::Start},
                                                     {kill_cmd, ControlVerb::Kill},
                                                     {logs_cmd, ControlVerb::Logs}};
  for (const auto& [cmd, verb] : verbs) {
    if (*cmd) control.verb = verb;
  }
  return pai::launcher::job_control_command(control);
}
