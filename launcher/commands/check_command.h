// `pai-launch check`: the sanity checks on this node alone, as a node doctor.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "launcher/node/node_identity.h"

namespace pai::launcher {

/// Exit status of `pai-launch check --history DIR` for a node its history quarantines (it failed
/// 2 of its last 5 checks, this one included), whatever this run's results.
inline constexpr int kQuarantinedExitCode = 3;

/// What `pai-launch check --plan FILE [--token-file F] [--node NAME | --node-rank N]
/// [--only gpu,burn,...] [--json] [--history DIR]` asks for.
struct CheckCommandOptions {
  std::string plan_path;
  std::string token_file;         ///< --token-file; empty = job.token next to the plan, if any
  NodeHints node;                 ///< --node / --node-rank
  std::vector<std::string> only;  ///< check names (kCheckNames); empty = the plan's
  bool json = false;              ///< print {"node": ..., "results": [...]} instead of the table
  std::string history_dir;        ///< --history: append to DIR/<node>.jsonl and judge it
  checks::CheckOptions checks;            ///< everything else; `only` is taken from above
};

/// Loads the plan (its seal verified with the job token, as `run` does), identifies this node like
/// `run` does (node_identity.h) and runs the checks, printing a table (check, result, figure, time;
/// then each check's summary, and for failures the detail) or JSON to `out`, errors to `err`.
/// With a history directory, appends this run to the node's history (node_history.h; a write
/// that fails is a warning) and says whether the node is quarantined.
/// Returns 0 when every check passed or was skipped, 1 when one failed, 2 for a usage or plan error
/// (unreadable plan, unknown node, unknown check name), kQuarantinedExitCode for a node its
/// history quarantines.
int run_check_command(const CheckCommandOptions& options, std::ostream& out, std::ostream& err);

/// run_check_command() on std::cout and std::cerr.
int run_check_command(const CheckCommandOptions& options);

/// The table run_check_command() prints for `results`.
std::string format_check_table(const std::vector<checks::CheckResult>& results);

}  // namespace pai::launcher
