#include "compiler/openpai/cmd_plugin.h"

#include <algorithm>
#include <cctype>

namespace pai {

namespace {

// The commands of list `node` at `path` (strings), appended to `out`.
void read_commands(const Node& node, const std::string& path, FieldReader& reader,
                   std::vector<PluginCommand>& out) {
  std::vector<std::string> texts;
  if (!reader.string_list(node, path, &texts)) return;
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    out.push_back({&node.items[i], index_path(path, i)});
  }
}

void read_callbacks(const Node& node, const std::string& path, FieldReader& reader,
                    Diagnostics& diags, CmdPlugin& plugin) {
  if (!reader.list(node, path, "a list of callbacks")) return;
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const Node& item = node.items[i];
    const std::string item_path = index_path(path, i);
    if (!reader.mapping(item, item_path, {"event", "commands"})) continue;
    const Node* event = reader.required(item, item_path, "event");
    const Node* commands = reader.required(item, item_path, "commands");
    std::string name;
    if (!event || !commands || !reader.string(*event, join_path(item_path, "event"), &name)) {
      continue;
    }
    if (name == "taskStarts") {
      read_commands(*commands, join_path(item_path, "commands"), reader, plugin.pre);
    } else if (name == "taskSucceeds") {
      read_commands(*commands, join_path(item_path, "commands"), reader, plugin.post);
    } else {
      diags.warning(event->loc, join_path(item_path, "event"),
                    "event " + quote(name) +
                        ": OpenPAI's cmd plugin runs only taskStarts and taskSucceeds callbacks, "
                        "so these commands never run");
    }
  }
}

}  // namespace

CmdPlugin read_cmd_plugin(const Node& parameters, const std::string& path,
                          const Node* failure_policy, const std::vector<std::string>& ignored,
                          FieldReader& reader, Diagnostics& diags) {
  CmdPlugin plugin;
  plugin.path = path;
  if (failure_policy) {
    std::string policy;
    if (reader.string(*failure_policy, join_path(path, "failurePolicy"), &policy)) {
      std::transform(policy.begin(), policy.end(), policy.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      plugin.ignore_failures = policy == "ignore";
    }
  }
  std::vector<std::string> known = {"callbacks", "preCommands", "postCommands"};
  known.insert(known.end(), ignored.begin(), ignored.end());
  if (parameters.is_null() || !reader.mapping(parameters, path, known)) return plugin;
  const Node* callbacks = parameters.find("callbacks");
  for (const auto& [key, value] : parameters.entries) {
    const std::string key_path = join_path(path, key.scalar);
    if (key.scalar == "callbacks") {
      read_callbacks(value, key_path, reader, diags, plugin);
    } else if ((key.scalar == "preCommands" || key.scalar == "postCommands") && callbacks) {
      reader.error(key, key_path,
                   "a cmd plugin has callbacks or " + key.scalar +
                       ", not both: OpenPAI's runtime refuses the job");
    } else if (key.scalar == "preCommands") {
      read_commands(value, key_path, reader, plugin.pre);
    } else if (key.scalar == "postCommands") {
      read_commands(value, key_path, reader, plugin.post);
    }
  }
  return plugin;
}

bool cmd_plugin_applies(const CmdPlugin& plugin, const std::string& role) {
  return !plugin.task_roles_node || std::find(plugin.task_roles.begin(), plugin.task_roles.end(),
                                              role) != plugin.task_roles.end();
}

std::string cmd_plugin_script(const std::vector<const CmdPlugin*>& plugins, bool post,
                              const TemplateScope& scope, FieldReader& reader, Diagnostics& diags) {
  std::vector<const CmdPlugin*> order = plugins;
  if (post) std::reverse(order.begin(), order.end());
  std::string script;
  for (const CmdPlugin* plugin : order) {
    const std::vector<PluginCommand>& commands = post ? plugin->post : plugin->pre;
    if (commands.empty()) continue;
    script += "# " + plugin->path + (post ? " (after the commands)" : "") + "\n(\n";
    script += "set +o nounset +o pipefail\n";
    script += plugin->ignore_failures ? "set +o errexit\n" : "set -o errexit\n";
    for (const PluginCommand& command : commands) {
      script += render_openpai_templates(*command.node, command.path, scope, reader, diags) + "\n";
    }
    if (plugin->ignore_failures) script += "set -o errexit\n";
    script += ")\n";
  }
  return script;
}

}  // namespace pai
