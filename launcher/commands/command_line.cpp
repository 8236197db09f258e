#include "launcher/commands/command_line.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "launcher/commands/check_command.h"
#include "launcher/commands/ctl_command.h"
#include "launcher/commands/drill_burn_command.h"
#include "launcher/commands/drill_command.h"
#include "launcher/commands/ended_coordinator_command.h"
#include "launcher/commands/goodput_command.h"
#include "launcher/commands/job_control_command.h"
#include "launcher/commands/report_command.h"
#include "launcher/commands/rsh_command.h"
#include "launcher/commands/run_command.h"
#include "launcher/commands/torchrun_command.h"
#include "launcher/logs/output_writers.h"
#include "libpai/duration.h"

namespace pai::launcher {
namespace {

// What the command line asks for, as CLI11 fills it in.
struct Flags {
  RunOptions run;
  JobControlOptions control;
  CheckCommandOptions check;
  ReportOptions report;
  GoodputOptions goodput;
  DrillOptions drill;
  std::vector<std::string> drill_faults;
  std::string drill_hold = "60s";
  std::string drill_settle = "120s";
  std::string drill_timeout = "300s";
  std::vector<std::string> ctl_words;
  std::string node;    // run/check --node
  int node_rank = -1;  // run/check --node-rank
  std::string rendezvous_timeout = "5m";
  int heartbeat_ms = 1000;
};

// The subcommands, to tell which one was chosen.
struct Subcommands {
  CLI::App* run = nullptr;
  CLI::App* check = nullptr;
  CLI::App* ctl = nullptr;
  CLI::App* report = nullptr;
  CLI::App* goodput = nullptr;
  CLI::App* drill = nullptr;
  std::vector<std::pair<CLI::App*, ControlVerb>> control;
};

int usage(const std::string& text) {
  terminal_say(2, "pai-launch: error: " + text + "\n");
  return 2;
}

// --coordinator and --job, which the control commands share (with --plan and --token-file).
void add_job_flags(CLI::App* cmd, JobLocator& locator) {
  cmd->add_option("--coordinator", locator.coordinator,
                  "the job's coordinator ADDRESS:PORT (with --token-file and --job)");
  cmd->add_option("--job", locator.job, "the job's name (with --coordinator)");
}

CLI::App* add_run(CLI::App& app, Flags& f) {
  auto* cmd = app.add_subcommand(
      "run",
      "run this node's instance of a compiled job; with -- CMD...: run CMD on every node of a "
      "running job");
  cmd->add_option("--plan", f.run.plan_path, "plan.json written by pai-compile");
  auto* node = cmd->add_option("--node", f.node, "this node's host name in the plan");
  cmd->add_option("--node-rank", f.node_rank, "this node's instance index in the plan")
      ->excludes(node);
  cmd->add_option("--token-file", f.run.token_file, "the job token (job.token)");
  cmd->add_option("--log-dir", f.run.log_dir,
                  "log directory (default: <output>/logs, else logs/ next to the plan)");
  cmd->add_flag("--slurm", f.run.slurm,
                "take the hosts from the Slurm allocation (SLURM_JOB_NODELIST, SLURM_NODEID)");
  cmd->add_option("--rendezvous-timeout", f.rendezvous_timeout,
                  "multi-node: how long to wait for every instance (90s, 5m, ...)")
      ->capture_default_str();
  cmd->add_option("--heartbeat-interval-ms", f.heartbeat_ms,
                  "multi-node: heartbeat interval; a launcher silent for 5 intervals is lost")
      ->check(CLI::Range(10, 60000))
      ->capture_default_str();
  cmd->add_option("--verdict-file", f.run.verdict_file,
                  "multi-node: the launcher that runs the coordinator writes the job's exit "
                  "code here when it ends");
  add_job_flags(cmd, f.control.locator);
  cmd->add_option("command", f.control.command,
                  "a command to run on every node of the running job (after --)");
  return cmd;
}

CLI::App* add_ctl(CLI::App& app, Flags& f) {
  auto* cmd = app.add_subcommand(
      "ctl",
      "talk to this process's launcher: notify TEXT | progress STEP | hang-interval "
      "D|default|off | exit-hang-interval D|default | retryable-error TEXT");
  cmd->add_option("request", f.ctl_words, "the request and its arguments")->required();
  cmd->allow_extras(false);
  return cmd;
}

CLI::App* add_check(CLI::App& app, Flags& f) {
  auto* cmd = app.add_subcommand("check", "run the sanity checks on this node alone");
  cmd->add_option("--plan", f.check.plan_path, "plan.json written by pai-compile")->required();
  cmd->add_option("--token-file", f.check.token_file,
                  "the job token (job.token; default: next to the plan)");
  auto* node = cmd->add_option("--node", f.node, "this node's host name in the plan");
  cmd->add_option("--node-rank", f.node_rank, "this node's instance index in the plan")
      ->excludes(node);
  cmd->add_option("--only", f.check.only,
                  "checks to run (gpu,burn,nccl,network,mounts,disk,custom)")
      ->delimiter(',');
  cmd->add_flag("--json", f.check.json, "print the results as JSON");
  cmd->add_option("--history", f.check.history_dir,
                  "append the results to DIR/<node>.jsonl; exit 3 when the node failed 2 of "
                  "its last 5 checks (quarantined)");
  return cmd;
}

CLI::App* add_report(CLI::App& app, Flags& f) {
  auto* cmd = app.add_subcommand(
      "report", "write the HTML report of a job from its log folder (timeline, step rate, root "
                "cause)");
  cmd->add_option("logdir", f.report.log_dir, "the job's log folder")->required();
  cmd->add_option("-o,--output", f.report.output,
                  "the report file (default: <logdir>/report.html; - for standard output)");
  return cmd;
}

CLI::App* add_goodput(CLI::App& app, Flags& f) {
  auto* cmd = app.add_subcommand(
      "goodput",
      "where every rank-second of a job went, from its log folder (start-up, checks, "
      "steps, checkpoint stall, hang wait, backoff, rollback, ...), and the ETTR");
  cmd->add_option("logdir", f.goodput.log_dir, "the job's log folder")->required();
  cmd->add_option("--format", f.goodput.format, "text (a table) or json")
      ->check(CLI::IsMember({"text", "json"}));
  return cmd;
}

CLI::App* add_drill(CLI::App& app, Flags& f) {
  auto* cmd = app.add_subcommand(
      "drill",
      "put faults into a running job one at a time and score how it handled each: time to "
      "detect, the right rank named, time to recover, steps lost (docs/drill.md)");
  JobLocator& locator = f.drill.locator;
  cmd->add_option("--plan", locator.plan_path,
                  "plan.json of the job (its coordinator; job.token and the log folder from it)");
  cmd->add_option("--token-file", locator.token_file, "the job token (job.token)");
  add_job_flags(cmd, locator);
  cmd->add_option("--log-dir", locator.log_dir,
                  "the job's log folder, whose journals score the faults (default: the plan's)");
  cmd->add_option("--faults", f.drill_faults,
                  "the faults, in order: rank-kill, rank-hang, slow-rank, collective-hang, "
                  "slow-gpu, node-loss, slow-link, dropped-link, disk-full (default: "
                  "rank-kill,rank-hang,slow-rank,node-loss; collective-hang needs ranks that "
                  "use pai.telemetry, slow-gpu a GPU per rank; "
                  "the link faults need nodes with links of their own and CAP_NET_ADMIN, "
                  "disk-full an output folder on a local file system of its own)")
      ->delimiter(',');
  cmd->add_option("--instance", f.drill.instance,
                  "the instance the faults go into, ROLE-INDEX (default: the last one on a node "
                  "that does not serve the coordinator)");
  cmd->add_option("--rank", f.drill.rank, "its local rank (default: its last)")
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--hold", f.drill_hold,
                  "how long the bounded faults last (all but rank-kill and node-loss)")
      ->capture_default_str();
  cmd->add_option("--settle", f.drill_settle,
                  "how long to wait for the job to step steadily before each fault")
      ->capture_default_str();
  cmd->add_option("--timeout", f.drill_timeout,
                  "how long to wait after a fault for its verdict and the next step")
      ->capture_default_str();
  cmd->add_option("--format", f.drill.format, "text (a table) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return cmd;
}

// `drill`: its durations and fault names, then the campaign.
int drill(Flags& f) {
  if (!f.drill_faults.empty()) {
    f.drill.faults.clear();
    for (const std::string& name : f.drill_faults) {
      const auto fault = enum_from_string<DrillFault>(name);
      if (!fault) {
        std::string names;
        const auto all = enum_values<DrillFault>();
        for (std::size_t i = 0; i < all.size(); ++i) {
          names += (i == 0                ? ""
                    : i + 1 == all.size() ? " or "
                                          : ", ") +
                   std::string(to_string(all[i]));
        }
        return usage("drill: --faults: unknown fault \"" + name + "\"; expected " + names);
      }
      f.drill.faults.push_back(*fault);
    }
  }
  struct Duration {
    const char* flag;
    const std::string& text;
    std::chrono::seconds& into;
  };
  for (const Duration& d : {Duration{"--hold", f.drill_hold, f.drill.hold},
                            Duration{"--settle", f.drill_settle, f.drill.settle},
                            Duration{"--timeout", f.drill_timeout, f.drill.timeout}}) {
    std::string error;
    const auto seconds = parse_duration(d.text, &error);
    if (!seconds || *seconds == 0 || *seconds > kMaxFaultSeconds) {
      return usage(std::string("drill: ") + d.flag + " " + d.text + ": " +
                   (seconds ? "expected 1s to 1h" : error));
    }
    d.into = std::chrono::seconds(*seconds);
  }
  return drill_command(f.drill);
}

// A job-control subcommand: status, stop, start, cancel, kill, logs.
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

std::vector<std::pair<CLI::App*, ControlVerb>> add_controls(CLI::App& app,
                                                            JobControlOptions& control) {
  auto* status =
      add_control(app, "status", "show the nodes, ranks, states and restarts of a job", control);
  status->add_flag("--json", control.json, "print the coordinator's status message as JSON");
  status->add_flag("--watch,-w", control.watch,
                   "ask again every --interval until the job ends; a terminal is redrawn in place");
  status
      ->add_option_function<double>(
          "--interval",
          [&control](double seconds) {
            control.watch_interval = std::chrono::milliseconds(std::llround(seconds * 1000));
          },
          "seconds between answers with --watch (0.1 to 3600; default 2)")
      ->check(CLI::Range(0.1, 3600.0));
  auto* stop = add_control(app, "stop", "pause a job: stop every instance", control);
  auto* start = add_control(app, "start", "resume a job stopped by stop", control);
  auto* cancel = add_control(
      app, "cancel", "end a job as cancelled: every node stops and exits 143, nothing restarts",
      control);
  auto* kill = add_control(app, "kill",
                           "kill an instance's processes as a failure (policy applies)", control);
  kill->add_option("instance", control.instance, "the instance: ROLE-INDEX, e.g. worker-1")
      ->required();
  auto* checkpoint_now = add_control(
      app, "checkpoint-now",
      "ask every running rank to checkpoint at its next step (the SDK's should_checkpoint)",
      control);
  auto* logs = add_control(app, "logs", "print the ranks' logs of a job", control);
  logs->add_flag("--follow,-f", control.follow, "keep printing output as it comes");
  logs->add_option("--rank", control.rank, "one rank only (default: every rank)");
  logs->add_option("--tail", control.tail,
                   "lines of each rank's log to start with (within its last 1 MiB)")
      ->capture_default_str();
  logs->add_flag("--merge", control.merge,
                 "label lines [node:rank] and print identical lines of several ranks once");
  for (CLI::App* cmd : {status, logs}) {
    cmd->add_option("--log-dir", control.locator.log_dir,
                    "the job's log folder, read once the job is over (default: the plan's)");
  }
  return {{status, ControlVerb::Status}, {stop, ControlVerb::Stop},
          {start, ControlVerb::Start},   {cancel, ControlVerb::Cancel},
          {kill, ControlVerb::Kill},     {checkpoint_now, ControlVerb::CheckpointNow},
          {logs, ControlVerb::Logs}};
}

// `run -- CMD...`: the command on every node of a running job.
int run_everywhere(const CLI::App& cmd, Flags& f) {
  for (const char* flag : {"--node", "--node-rank", "--log-dir", "--slurm", "--rendezvous-timeout",
                           "--heartbeat-interval-ms", "--verdict-file"}) {
    if (cmd.count(flag) > 0) {
      return usage(std::string(flag) + " is for running a node of a job; with a command, " +
                   "run runs it on every node of a running job");
    }
  }
  f.control.verb = ControlVerb::Run;
  f.control.locator.plan_path = f.run.plan_path;
  f.control.locator.token_file = f.run.token_file;
  return job_control_command(f.control);
}

// `run --plan P`: this node's instance of the job.
int run_node(const CLI::App& cmd, Flags& f) {
  if (cmd.count("--coordinator") > 0 || cmd.count("--job") > 0) {
    return usage("--coordinator and --job go with a command: pai-launch run ... -- CMD...");
  }
  if (f.run.plan_path.empty()) return usage("run: --plan is required");
  if (!f.node.empty()) f.run.node = f.node;
  if (cmd.count("--node-rank") > 0) f.run.node_rank = f.node_rank;
  std::string error;
  const auto seconds = parse_duration(f.rendezvous_timeout, &error);
  if (!seconds || *seconds == 0) {
    return usage("--rendezvous-timeout " + f.rendezvous_timeout + ": " +
                 (seconds ? "must be more than 0" : error));
  }
  f.run.rendezvous_timeout = std::chrono::seconds(*seconds);
  f.run.heartbeat_interval = std::chrono::milliseconds(f.heartbeat_ms);
  return run_command(f.run);
}

int check_node(const CLI::App& cmd, Flags& f) {
  if (!f.node.empty()) f.check.node.name = f.node;
  if (cmd.count("--node-rank") > 0) f.check.node.node_rank = f.node_rank;
  return run_check_command(f.check);
}

int dispatch(const Subcommands& sub, Flags& f) {
  if (*sub.run)
    return f.control.command.empty() ? run_node(*sub.run, f) : run_everywhere(*sub.run, f);
  if (*sub.check) return check_node(*sub.check, f);
  if (*sub.ctl) return ctl_command(f.ctl_words);
  if (*sub.report) return report_command(f.report);
  if (*sub.goodput) return goodput_command(f.goodput);
  if (*sub.drill) return drill(f);
  for (const auto& [cmd, verb] : sub.control) {
    if (*cmd) f.control.verb = verb;
  }
  return job_control_command(f.control);
}

}  // namespace

int launch_main(int argc, char** argv) {
  // rsh is called like ssh, with ssh's options (Open MPI's agent): it parses them itself.
  if (argc >= 2 && std::strcmp(argv[1], "rsh") == 0) {
    return rsh_command(std::vector<std::string>(argv + 2, argv + argc));
  }
  // Started by `pai-launch run` alone, with positional arguments; not listed in --help.
  if (argc >= 2 && std::strcmp(argv[1], "ended-coordinator") == 0) {
    return ended_coordinator_command(std::vector<std::string>(argv + 2, argv + argc));
  }
  // Started by a drill's slow-gpu alone (supervisor/gpu_load.h); not listed in --help.
  if (argc >= 2 && std::strcmp(argv[1], "drill-burn") == 0) {
    return drill_burn_command(std::vector<std::string>(argv + 2, argv + argc));
  }
  // torchrun takes torchrun's command line, which it parses itself; a link named torchrun to
  // pai-launch is torchrun (`ln -s pai-launch torchrun`).
  const char* slash = argc >= 1 ? std::strrchr(argv[0], '/') : nullptr;
  if (argc >= 1 && std::strcmp(slash != nullptr ? slash + 1 : argv[0], "torchrun") == 0) {
    return torchrun_command(std::vector<std::string>(argv + 1, argv + argc));
  }
  if (argc >= 2 && std::strcmp(argv[1], "torchrun") == 0) {
    return torchrun_command(std::vector<std::string>(argv + 2, argv + argc));
  }
  CLI::App app{"pai-launch: start, supervise and restart the processes of a pai job on this node"};
  app.set_version_flag("--version", std::string("pai-launch ") + PAI_VERSION);
  app.require_subcommand(1);
  Flags flags;
  Subcommands sub;
  sub.run = add_run(app, flags);
  sub.ctl = add_ctl(app, flags);
  sub.check = add_check(app, flags);
  sub.report = add_report(app, flags);
  sub.goodput = add_goodput(app, flags);
  sub.drill = add_drill(app, flags);
  sub.control = add_controls(app, flags.control);
  // Listed for --help; launch_main() hands `torchrun` and `rsh` over before CLI11 sees them.
  app.add_subcommand("torchrun",
                     "run torchrun's command line as a pai job: torchrun [torchrun's options] "
                     "SCRIPT [ARGS...] (also as a link named torchrun)")
      ->allow_extras();
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
  return dispatch(sub, flags);
}

}  // namespace pai::launcher
