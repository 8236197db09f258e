// OpenPAI deployments: the preCommands and postCommands a job file adds to its task roles,
// and the script each task role runs.
//
// OpenPAI applies the deployment that `defaults.deployment` names: each task role runs its
// preCommands, then its commands, then its postCommands, as one script. Without
// `defaults.deployment` no deployment applies.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/document/document.h"
#include "compiler/document/field_reader.h"
#include "compiler/openpai/dropped.h"
#include "compiler/openpai/templates.h"

namespace pai {

/// One task role's part of the selected deployment; null nodes where a list is absent.
struct RoleDeployment {
  const Node* pre_commands = nullptr;
  std::string pre_path;  ///< "deployments[i].taskRoles.<role>.preCommands"
  const Node* post_commands = nullptr;
  std::string post_path;
};

/// The selected deployment's commands by OpenPAI task role name (empty when none applies).
/// `deployments` and `selected` (`defaults.deployment`) may be null. A deployment that is
/// not applied goes to `dropped`; a selected deployment that does not exist, a task role not
/// in `task_roles`, unknown keys and lists that are not lists of strings are errors.
std::map<std::string, RoleDeployment> select_deployment(const Node* deployments,
                                                        const Node* selected,
                                                        const std::vector<std::string>& task_roles,
                                                        FieldReader& reader,
                                                        DroppedFields& dropped);

/// The script a task role runs: its deployment's preCommands, its `commands` (at `path`),
/// then its postCommands, each with its templates rendered in `scope` and trimmed, one per
/// line, as OpenPAI joins them for bash.
std::string role_script(const RoleDeployment& deployment, const Node& commands,
                        const std::string& path, const TemplateScope& scope, FieldReader& reader,
                        Diagnostics& diags);

}  // namespace pai
