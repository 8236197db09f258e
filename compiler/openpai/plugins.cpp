#include "compiler/openpai/plugins.h"

#include <string>
#include <vector>

#include "compiler/openpai/nodes.h"

namespace pai {

namespace {

const char kRuntimePlugin[] = "com.microsoft.pai.runtimeplugin";

class PluginReader {
 public:
  PluginReader(FieldReader& reader, Diagnostics& diags, DroppedFields& dropped)
      : reader_(reader), diags_(diags), dropped_(dropped) {
    plugins_.mounts = sequence_node(Location{});
  }

  void extras(const Node& node) {
    if (!reader_.free_mapping(node, "extras")) return;
    for (const auto& [key, value] : node.entries) {
      const std::string path = join_path("extras", key.scalar);
      if (key.scalar == kRuntimePlugin) {
        runtime_plugins(value, path);
      } else if (key.scalar == "hivedScheduler") {
        dropped_.add(key.loc, path, "HiveD's SKUs: the hosts come from --hosts or hosts");
      } else if (key.scalar == "gangAllocation") {
        dropped_.add(key.loc, path, "pai always starts every instance together");
      } else {
        dropped_.add(key.loc, path, "");
      }
    }
  }

  RuntimePlugins take() { return std::move(plugins_); }

 private:
  void runtime_plugins(const Node& node, const std::string& path) {
    if (!reader_.list(node, path, "a list of runtime plugins")) return;
    for (size_t i = 0; i < node.items.size(); ++i) {
      const Node& item = node.items[i];
      const std::string item_path = index_path(path, i);
      if (!reader_.free_mapping(item, item_path)) continue;
      const Node* plugin = reader_.required(item, item_path, "plugin");
      std::string name;
      if (!plugin || !reader_.string(*plugin, join_path(item_path, "plugin"), &name)) continue;
      const Node* parameters = item.find("parameters");
      const Node* storages =
          parameters && parameters->is_mapping() ? parameters->find("storageConfigNames") : nullptr;
      if (name == "ssh") {
        ssh(parameters, join_path(item_path, "parameters"));
      } else if (name == "cmd") {
        cmd(item, item_path);
      } else if (name == "teamwise_storage" && storages) {
        storage(*storages, join_path(item_path, "parameters.storageConfigNames"));
      } else {
        dropped_.add(plugin->loc, join_path(item_path, "plugin"), "runtime plugin " + quote(name));
      }
    }
  }

  void cmd(const Node& item, const std::string& path) {
    static const Node kNone;
    const Node* parameters = item.find("parameters");
    CmdPlugin plugin =
        read_cmd_plugin(parameters ? *parameters : kNone, join_path(path, "parameters"),
                        item.find("failurePolicy"), {}, reader_, diags_);
    plugin.path = path;
    if (const Node* roles = item.find("taskroles")) {
      if (reader_.string_list(*roles, join_path(path, "taskroles"), &plugin.task_roles)) {
        plugin.task_roles_node = roles;
      }
    }
    plugins_.commands.push_back(std::move(plugin));
  }

  void storage(const Node& names, const std::string& names_path) {
    std::vector<std::string> storages;
    if (!reader_.string_list(names, names_path, &storages)) return;
    for (size_t k = 0; k < storages.size(); ++k) {
      const Node& at = names.items[k];
      const std::string mount_path = "/mnt/" + storages[k];
      Node mount = mapping_node(at.loc);
      put(mount, "name", at, at.loc);
      put(mount, "source", string_node(mount_path, at.loc), at.loc);
      put(mount, "target", string_node(mount_path, at.loc), at.loc);
      if (plugins_.mounts.items.empty()) plugins_.mounts.loc = at.loc;
      plugins_.mounts.items.push_back(std::move(mount));
      diags_.warning(at.loc, index_path(names_path, k),
                     "storage " + quote(storages[k]) + " becomes mount " + mount_path + " -> " +
                         mount_path + " (OpenPAI's mount point): it must be mounted at " +
                         mount_path + " on every host");
    }
  }

  void ssh(const Node* parameters, const std::string& path) {
    if (!parameters || parameters->is_null()) {
      plugins_.remote_shell = true;
      return;
    }
    if (!reader_.free_mapping(*parameters, path)) return;
    for (const auto& [key, value] : parameters->entries) {
      const std::string key_path = join_path(path, key.scalar);
      bool on = false;
      if (key.scalar == "jobssh") {
        if (reader_.boolean(value, key_path, &on)) plugins_.remote_shell |= on;
      } else if (key.scalar == "userssh") {
        dropped_.add(key.loc, key_path, "no sshd runs in the job: pai-launch run or ctl reach it");
      } else if (key.scalar != "sshbarrier" && key.scalar != "sshbarrierTimeout") {
        // sshbarrier holds anyway: pai-launch starts the commands once every node has joined.
        dropped_.add(key.loc, key_path, "");
      }
    }
  }

  FieldReader& reader_;
  Diagnostics& diags_;
  DroppedFields& dropped_;
  RuntimePlugins plugins_;
};

}  // namespace

RuntimePlugins translate_openpai_extras(const Node& node, FieldReader& reader, Diagnostics& diags,
                                        DroppedFields& dropped) {
  PluginReader plugins(reader, diags, dropped);
  plugins.extras(node);
  return plugins.take();
}

}  // namespace pai
