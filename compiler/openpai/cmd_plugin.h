// OpenPAI's `cmd` runtime plugin: commands run before a task role's commands and after them.
//
// OpenPAI's runtime (microsoft/openpai-runtime, src/plugins/cmd/init.py and
// plugin_utils.py) writes each cmd plugin's preCommands (or its `taskStarts` callbacks) into
// a script of its own that precommands.sh runs with `/bin/bash` before the task role's
// commands, and its postCommands (`taskSucceeds`) into one that postcommands.sh runs once the
// commands succeeded; `set -o errexit` heads each, `failurePolicy: ignore` turns it off. A
// plugin comes from `extras.com.microsoft.pai.runtimeplugin` (for the task roles its
// `taskroles` names, or all) or from a prerequisite whose `plugin` is
// `com.microsoft.pai.runtimeplugin.cmd`, named in a task role's `prerequisites`.
#pragma once

#include <string>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "compiler/openpai/templates.h"

namespace pai {

/// One command of a cmd plugin and where it is.
struct PluginCommand {
  const Node* node = nullptr;  ///< a string scalar
  std::string path;
};

/// The commands of one cmd plugin.
struct CmdPlugin {
  std::vector<PluginCommand> pre;   ///< preCommands, or the taskStarts callbacks' commands
  std::vector<PluginCommand> post;  ///< postCommands, or the taskSucceeds callbacks' commands
  bool ignore_failures = false;     ///< failurePolicy: ignore
  /// The task roles (OpenPAI names) it applies to; empty: every task role.
  std::vector<std::string> task_roles;
  const Node* task_roles_node = nullptr;  ///< `taskroles`, when given
  std::string path;                       ///< where the plugin is, for messages
};

/// Reads the parameters of a cmd plugin at `path` (`preCommands` and `postCommands`, or
/// `callbacks`: a list of `{event, commands}`) and its `failurePolicy` (may be null).
/// Errors: both forms at once (OpenPAI's runtime refuses the job), commands that are not
/// strings. A warning, located at the event: callbacks of another event than taskStarts and
/// taskSucceeds, which OpenPAI never runs. Keys of `parameters` named in `ignored` are
/// skipped (a prerequisite's own fields), other keys are errors.
CmdPlugin read_cmd_plugin(const Node& parameters, const std::string& path,
                          const Node* failure_policy, const std::vector<std::string>& ignored,
                          FieldReader& reader, Diagnostics& diags);

/// Whether `plugin` applies to the task role named `role`.
bool cmd_plugin_applies(const CmdPlugin& plugin, const std::string& role);

/// The shell text that runs the `plugins`' commands, in the order OpenPAI's runtime runs
/// them, for a task role's bash script (which runs with errexit, nounset and pipefail): each
/// plugin's commands in a subshell, as the separate `/bin/bash` OpenPAI runs them in, with
/// errexit set (off with failurePolicy: ignore) and nounset and pipefail off. `post`: the
/// postCommands, the last plugin's first, as OpenPAI inserts each plugin's before the
/// others'. Templates are rendered in `scope`. "" when there is no such command.
std::string cmd_plugin_script(const std::vector<const CmdPlugin*>& plugins, bool post,
                              const TemplateScope& scope, FieldReader& reader, Diagnostics& diags);

}  // namespace pai
