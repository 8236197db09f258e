#include "compiler/openpai/deployments.h"

#include <algorithm>

namespace pai {

namespace {

const std::vector<std::string> kDeploymentKeys = {"name", "version", "taskRoles"};
const std::vector<std::string> kRoleKeys = {"preCommands", "postCommands"};

struct Named {
  std::string name;
  const Node* node;
  std::string path;
};

// The deployments with a name, in file order; errors for the rest.
std::vector<Named> read_deployments(const Node& list, FieldReader& reader, DroppedFields& dropped) {
  std::vector<Named> out;
  if (!reader.list(list, "deployments", "a list of deployments")) return out;
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    const Node& item = list.items[i];
    const std::string path = index_path("deployments", i);
    if (!reader.mapping(item, path, kDeploymentKeys)) continue;
    if (const Node* version = item.find("version")) {
      dropped.add(version->loc, join_path(path, "version"), "deployment metadata");
    }
    const Node* name = reader.required(item, path, "name");
    std::string text;
    if (!name || !reader.string(*name, join_path(path, "name"), &text)) continue;
    const bool duplicate =
        std::any_of(out.begin(), out.end(), [&](const Named& d) { return d.name == text; });
    if (duplicate) {
      reader.error(*name, join_path(path, "name"), "a second deployment named " + quote(text));
      continue;
    }
    out.push_back({text, &item, path});
  }
  return out;
}

// A list of strings, or an error.
const Node* command_list(const Node& node, const std::string& path, FieldReader& reader) {
  std::vector<std::string> ignored;
  return reader.string_list(node, path, &ignored) ? &node : nullptr;
}

std::map<std::string, RoleDeployment> read_roles(const Named& deployment,
                                                 const std::vector<std::string>& task_roles,
                                                 FieldReader& reader) {
  std::map<std::string, RoleDeployment> out;
  const std::string roles_path = join_path(deployment.path, "taskRoles");
  const Node* roles = reader.optional(*deployment.node, deployment.path, "taskRoles");
  if (!roles || !reader.free_mapping(*roles, roles_path)) return out;
  for (const auto& [key, value] : roles->entries) {
    const std::string path = join_path(roles_path, key.scalar);
    if (std::find(task_roles.begin(), task_roles.end(), key.scalar) == task_roles.end()) {
      reader.error(key, path,
                   "no task role named " + quote(key.scalar) +
                       defined_names_hint(key.scalar, task_roles, "the file has no taskRoles"));
      continue;
    }
    if (!reader.mapping(value, path, kRoleKeys)) continue;
    RoleDeployment& role = out[key.scalar];
    role.pre_path = join_path(path, "preCommands");
    role.post_path = join_path(path, "postCommands");
    if (const Node* pre = reader.optional(value, path, "preCommands")) {
      role.pre_commands = command_list(*pre, role.pre_path, reader);
    }
    if (const Node* post = reader.optional(value, path, "postCommands")) {
      role.post_commands = command_list(*post, role.post_path, reader);
    }
  }
  return out;
}

// OpenPAI trims each command before joining them (JavaScript's String.trim()).
std::string trim_command(const std::string& text) {
  const char* space = " \t\r\n\v\f";
  const std::size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(space) + 1 - first);
}

void append_commands(const Node* list, const std::string& path, const TemplateScope& scope,
                     FieldReader& reader, Diagnostics& diags, std::string& script) {
  if (!list) return;
  for (size_t i = 0; i < list->items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    std::string line;
    if (!reader.string(list->items[i], item_path, &line)) continue;
    line = render_openpai_templates(list->items[i], item_path, scope, reader, diags);
    script += (script.empty() ? "" : "\n") + trim_command(line);
  }
}

}  // namespace

std::string role_script(const RoleDeployment& deployment, const Node& commands,
                        const std::string& path, const TemplateScope& scope, FieldReader& reader,
                        Diagnostics& diags) {
  std::string script;
  append_commands(deployment.pre_commands, deployment.pre_path, scope, reader, diags, script);
  append_commands(&commands, path, scope, reader, diags, script);
  append_commands(deployment.post_commands, deployment.post_path, scope, reader, diags, script);
  return script;
}

std::map<std::string, RoleDeployment> select_deployment(const Node* deployments,
                                                        const Node* selected,
                                                        const std::vector<std::string>& task_roles,
                                                        FieldReader& reader,
                                                        DroppedFields& dropped) {
  const std::vector<Named> all =
      deployments ? read_deployments(*deployments, reader, dropped) : std::vector<Named>{};
  std::string name;
  if (selected && !reader.string(*selected, "defaults.deployment", &name)) return {};
  const auto chosen = std::find_if(all.begin(), all.end(),
                                   [&](const Named& d) { return selected && d.name == name; });
  if (selected && chosen == all.end()) {
    std::vector<std::string> names;
    for (const Named& d : all) names.push_back(d.name);
    reader.error(*selected, "defaults.deployment",
                 "no deployment named " + quote(name) +
                     defined_names_hint(name, names, "the file has no deployments"));
    return {};
  }
  for (auto d = all.begin(); d != all.end(); ++d) {
    if (d == chosen) continue;
    dropped.add(d->node->loc, d->path,
                selected ? "defaults.deployment selects " + quote(name)
                         : "no defaults.deployment selects it");
  }
  return chosen == all.end() ? std::map<std::string, RoleDeployment>{}
                             : read_roles(*chosen, task_roles, reader);
}

}  // namespace pai
