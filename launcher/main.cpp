// pai-launch: the per-node launcher. Parses the command line and hands over to a command.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "launcher/ctl_command.h"
#include "launcher/run_command.h"

#include "launcher/check_command.h"

int main(int argc, char** argv) {
  CLI::App app{"pai-launch: start, supervise and restart the processes of a pai job on this node"};
  app.set_version_flag("--version", std::string("pai-launch ") + PAI_VERSION);
  app.require_subcommand(1);

  pai::launcher::RunOptions run;
  std::string node;
  int node_rank = -1;
  auto* run_cmd = app.add_subcommand("run", "run this node's instance of a compiled job");
  run_cmd->add_option("--plan", run.plan_path, "plan.json written by pai-compile")->required();
  auto* node_opt = run_cmd->add_option("--node", node, "this node's host name in the plan");
  run_cmd->add_option("--node-rank", node_rank, "this node's instance index in the plan")
      ->excludes(node_opt);
  run_cmd->add_option("--token-file", run.token_file, "the job token (job.token)");
  run_cmd->add_option("--log-dir", run.log_dir,
                      "log directory (default: <output>/logs, else logs/ next to the plan)");

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*run_cmd) {
    if (!node.empty()) run.node = node;
    if (run_cmd->count("--node-rank") > 0) run.node_rank = node_rank;
    return pai::launcher::run_command(run);
  }
  if (*check_cmd) {
    if (!node.empty()) check.node.name = node;
    if (check_cmd->count("--node-rank") > 0) check.node.node_rank = node_rank;
    return pai::launcher::run_check_command(check);
  }
  return pai::launcher::ctl_command(words);
}
