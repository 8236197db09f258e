#include "launcher/commands/check_command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "launcher/checks/check_result_json.h"
#include "launcher/checks/history_check.h"
#include "launcher/checks/sanity_checks.h"
#include "launcher/commands/coordinator_address.h"
#include "launcher/node/check_cgroups.h"
#include "libpai/plan_json.h"

namespace pai::launcher {

using checks::CheckResult;
using checks::kCheckNames;
namespace {

// A failure's detail can be a 64 KiB output tail; the table shows its end.
constexpr std::size_t kDetailLines = 20;

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fs", seconds);
  return text;
}

std::vector<std::string> last_lines(const std::string& text, std::size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
  return lines;
}

std::string pad(const std::string& text, std::size_t width) {
  return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

std::string known_checks() {
  std::string list;
  for (const auto& name : kCheckNames) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace

std::string format_check_table(const std::vector<CheckResult>& results) {
  std::size_t name_width = 5, figure_width = 6;
  for (const auto& r : results) {
    name_width = std::max(name_width, r.name.size());
    figure_width = std::max(figure_width, r.figure.size());
  }
  std::string table =
      pad("CHECK", name_width + 2) + pad("RESULT", 9) + pad("FIGURE", figure_width + 2) + "TIME\n";
  for (const auto& r : results) {
    table += pad(r.name, name_width + 2) + pad(checks::to_string(r.status), 9) +
             pad(r.figure, figure_width + 2) + seconds_text(r.seconds) + "\n";
    if (!r.summary.empty()) table += "    " + r.summary + "\n";
    if (r.status == CheckResult::Failed) {
      for (const auto& line : last_lines(r.detail, kDetailLines)) table += "      " + line + "\n";
    }
  }
  return table;
}

int run_check_command(const CheckCommandOptions& options, std::ostream& out, std::ostream& err) {
  for (const auto& name : options.only) {
    if (std::find(kCheckNames.begin(), kCheckNames.end(), name) == kCheckNames.end()) {
      err << "pai-launch check: unknown check \"" << name << "\" (known: " << known_checks()
          << ")\n";
      return 2;
    }
  }
  Plan plan;
  try {
    // Custom checks run commands from the plan: an edited plan must not run them either.
    plan = load_plan_file(options.plan_path, find_job_token(options.plan_path, options.token_file));
  } catch (const std::runtime_error& e) {  // PlanError, LocateError
    err << "pai-launch check: " << e.what() << "\n";
    return 2;
  }
  const Placement* placement = nullptr;
  try {
    std::string how;
    placement = &identify_node(plan, options.node, local_identity(), &how);
  } catch (const NodeError& e) {
    err << "pai-launch check: " << options.plan_path << ": " << e.what() << "\n";
    return 2;
  }
  checks::CheckOptions check_options = options.checks;
  check_options.only = options.only;
  // The checks' children in cgroups of their own, as a launcher's. The tree is this process's
  // (a launcher of the job may be checking beside it); without cgroup v2 the process groups
  // hold them, as `run` says.
  CheckCgroups cgroups("pai_check-" + std::to_string(::getpid()), [](const std::string&) {});
  check_options.containment = &cgroups;
  std::vector<CheckResult> results = checks::run_sanity_checks(plan, *placement, check_options);
  const std::string& node = placement->host.name;
  Quarantine quarantine;
  std::vector<std::string> history_warnings;
  if (!options.history_dir.empty()) {
    // The plan's window and threshold (the defaults without a sanityCheck.history).
    const CheckHistory& h = plan.sanity_check.history;
    quarantine =
        checks::record_history(options.history_dir, checks::history_record(node, results),
                               QuarantinePolicy{h.window, h.max_failures}, &history_warnings);
    for (const auto& w : history_warnings) err << "pai-launch check: warning: " << w << "\n";
  }
  std::string quarantined = "node " + node + " is quarantined: " + quarantine.reason;
  if (options.json) {
    nlohmann::json doc = {{"node", node},
                          {"passed", checks::all_passed(results)},
                          {"results", nlohmann::json::parse(checks::to_json(results))}};
    if (!options.history_dir.empty()) {
      doc["history"] = {{"file", history_path(options.history_dir, node)},
                        {"quarantined", quarantine.quarantined},
                        {"failed", quarantine.failed},
                        {"considered", quarantine.considered},
                        {"reason", quarantine.reason},
                        {"warnings", history_warnings}};
    }
    out << doc.dump(2) << "\n";
  } else {
    out << "node " << node << " (" << placement->role << "-" << placement->index << ", node rank "
        << placement->node_rank << ")\n"
        << format_check_table(results);
    if (!options.history_dir.empty()) {
      out << (quarantine.quarantined
                  ? quarantined
                  : "history: failed " + std::to_string(quarantine.failed) + " of its last " +
                        std::to_string(quarantine.considered) + " checks, not quarantined")
          << " (" << history_path(options.history_dir, node) << ")\n";
    }
  }
  if (quarantine.quarantined) {
    err << "pai-launch check: " << quarantined << "\n";
    return kQuarantinedExitCode;
  }
  return checks::all_passed(results) ? 0 : 1;
}

int run_check_command(const CheckCommandOptions& options) {
  return run_check_command(options, std::cout, std::cerr);
}

}  // namespace pai::launcher
