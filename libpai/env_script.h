// env/<role>-<i>.sh: POSIX sh scripts exporting one instance's env contract.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libpai/env_contract.h"
#include "libpai/plan.h"

namespace pai {

/// A script for `. env/<role>-<i>.sh` that exports process_env() for the instance.
/// Variables that differ per process are exported inside a `case "${LOCAL_RANK:-0}"`
/// so one script serves every local rank. Every value is quoted with shell_quote().
std::string render_env_script(const Plan& plan, const Placement& placement,
                              const ProcessContext& ctx);

/// Renders the env scripts of one plan, render_env_script() byte for byte: what every script
/// of the plan shares (job_env(), its lines quoted) is made once instead of once per script,
/// which was most of the cost of a 10,000-node job's 10,000 scripts. Holds references to
/// `plan` and `ctx`: they must outlive it, unchanged.
class EnvScriptRenderer {
 public:
  EnvScriptRenderer(const Plan& plan, const ProcessContext& ctx);

  std::string render(const Placement& placement) const;
  /// The same into `out`, replacing what it held: a caller writing thousands of scripts keeps
  /// one buffer instead of allocating (and, in glibc, consolidating the heap for) each.
  void render(const Placement& placement, std::string& out) const;

 private:
  const Plan& plan_;
  const ProcessContext& ctx_;
  EnvList job_;
  std::vector<std::string> job_lines_;  ///< "export NAME=value\n" of each job_ variable
  std::unordered_map<std::string_view, std::size_t> job_index_;  ///< name -> index in job_
};

}  // namespace pai
