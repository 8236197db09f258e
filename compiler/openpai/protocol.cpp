#include "compiler/openpai/protocol.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/document/field_reader.h"
#include "compiler/openpai/cmd_plugin.h"
#include "compiler/openpai/deployments.h"
#include "compiler/openpai/dropped.h"
#include "compiler/openpai/names.h"
#include "compiler/openpai/nodes.h"
#include "compiler/openpai/plugins.h"
#include "compiler/openpai/retries.h"
#include "compiler/openpai/templates.h"

namespace pai {

namespace {

const std::vector<std::string> kTopKeys = {
    "protocolVersion", "name",       "type",    "version",       "contributor", "description",
    "prerequisites",   "parameters", "secrets", "jobRetryCount", "taskRoles",   "deployments",
    "defaults",        "extras",     "hosts",   "portRange"};
const std::vector<std::string> kTaskRoleKeys = {"instances",
                                                "completion",
                                                "taskRetryCount",
                                                "dockerImage",
                                                "data",
                                                "output",
                                                "script",
                                                "extraContainerOptions",
                                                "prerequisites",
                                                "commands",
                                                "resourcePerInstance",
                                                "protocolVersion"};
const std::vector<std::string> kResourceKeys = {"gpu", "cpu", "memoryMB", "ports"};
const std::vector<std::string> kCompletionKeys = {"minFailedInstances", "minSucceededInstances"};
const std::vector<std::string> kPrerequisiteTypes = {"dockerimage", "data", "script", "output"};
/// Where a job file whose name had to change keeps its OpenPAI name.
const char kOriginalNameEnv[] = "PAI_OPENPAI_JOB_NAME";
/// A prerequisite's `plugin` that names a runtime plugin: this, a dot, the plugin's name.
const char kRuntimePluginPrefix[] = "com.microsoft.pai.runtimeplugin.";
/// The ports OpenPAI's rest-server gives every task role that does not ask for them itself
/// (src/rest-server/src/models/v2/job/k8s.js, generateTaskRole).
const char* const kAlwaysPorts[] = {"ssh", "http"};

class Translator {
 public:
  Translator(const Document& doc, Diagnostics& diags)
      : doc_(doc), diags_(diags), reader_(diags, locations_, &doc.text) {}

  Document run();

 private:
  struct RoleInput {
    std::string name;  ///< OpenPAI's
    const Node* commands = nullptr;
    std::string commands_path;
    TemplateScope scope;
    std::vector<const CmdPlugin*> plugins;  ///< cmd plugins of its prerequisites, then extras'
  };
  /// A prerequisite whose `plugin` names a runtime plugin.
  struct PluginPrerequisite {
    std::string plugin;  ///< the runtime plugin's name
    const Node* at = nullptr;
    std::size_t cmd = SIZE_MAX;  ///< its index in cmd_prerequisites_, for the cmd plugin
  };

  void warn(const Node& at, const std::string& path, const std::string& message) {
    diags_.warning(at.loc, path, message);
  }
  void drop(const Node& at, const std::string& path, const std::string& reason) {
    dropped_.add(at.loc, path, reason);
  }
  void translate_root_field(const Node& key, const Node& value);
  void translate_name(const Node& value);
  void translate_defaults(const Node& value);
  void translate_parameters(const Node& key, const Node& value, bool secrets);
  void translate_prerequisites(const Node& node);
  void translate_prerequisite(const Node& item, const std::string& path);
  void translate_plugin_prerequisite(const Node& item, const Node& plugin, const std::string& path,
                                     const std::string& name);
  void translate_roles(const Node& task_roles, Node& roles);
  void translate_role(const Node& key, const Node& value, Node& roles);
  void translate_role_field(const Node& field, const Node& item, const std::string& path,
                            RoleInput& input, Node& role);
  void translate_resources(const Node& node, const std::string& path, Node& role);
  void translate_ports(const Node& node, const std::string& path, Node& role);
  void translate_completion(const Node& node, const std::string& path, Node& role);
  void complete_role(const Node& key, const Node& value, Node& role);
  void translate_role_prerequisites(const Node& node, const std::string& path, RoleInput& input);
  void check_plugin_roles(const Node* task_roles);
  void translate_container_options(const Node& node, const std::string& path, Node& role);
  void translate_commands(const RoleInput& input, Node& role);
  void add_role_env(const Location& loc, Node& role);
  void translate_image(const Node& node, const std::string& path, const std::string& role);
  void translate_images(const Node* task_roles);

  const Document& doc_;
  Diagnostics& diags_;
  std::map<std::string, Location> locations_;
  FieldReader reader_;
  DroppedFields dropped_;
  Node out_;
  Node parameters_;
  std::map<std::string, Location> parameter_names_, secret_names_;
  std::map<std::string, const Node*> images_;  // dockerimage prerequisite name -> uri node
  // "data" | "script" | "output" -> prerequisite name -> the prerequisite
  std::map<std::string, std::map<std::string, const Node*>> objects_;
  std::map<std::string, Location> prerequisite_names_;              // every prerequisite's name
  std::map<std::string, PluginPrerequisite> plugin_prerequisites_;  // by name
  std::vector<CmdPlugin> cmd_prerequisites_;
  std::string virtual_cluster_ = "default";  // defaults.virtualCluster, as OpenPAI's
  struct ImageUse {
    std::string role;
    const Node* uri = nullptr;
  };
  std::vector<ImageUse> image_uses_;
  std::vector<std::string> roles_without_image_;
  const Node* job_retry_ = nullptr;
  std::vector<TaskRetry> task_retries_;
  RuntimePlugins plugins_;
  const Node* deployments_ = nullptr;
  const Node* selected_deployment_ = nullptr;
  std::map<std::string, RoleDeployment> deployment_;
  std::string original_name_;  // the OpenPAI name when the job's name had to change
  bool mpi_ = false;           // a launcher task role: pai's mpi framework
};

Document Translator::run() {
  const Node& root = doc_.root;
  out_ = mapping_node(root.loc);
  parameters_ = mapping_node(root.loc);
  reader_.mapping(root, "", kTopKeys);
  const Node* version = root.find("protocolVersion");
  int protocol = 0;
  reader_.integer(*version, "protocolVersion", 2, 2, &protocol,
                  "2 (the OpenPAI job protocol version pai reads)");
  put(out_, "apiVersion", string_node("pai/v1", version->loc), version->loc);
  put(out_, "kind", string_node("Job", version->loc), version->loc);

  // Prerequisites first: roles refer to their docker images and data by name.
  if (const Node* n = reader_.optional(root, "", "prerequisites")) translate_prerequisites(*n);
  for (const auto& [key, value] : root.entries) translate_root_field(key, value);
  if (!parameters_.entries.empty()) put(out_, "parameters", parameters_, parameters_.loc);

  const Node* task_roles = root.find("taskRoles");
  Node roles = mapping_node(task_roles ? task_roles->loc : root.loc);
  if (task_roles && reader_.free_mapping(*task_roles, "taskRoles")) {
    translate_roles(*task_roles, roles);
  }
  translate_images(task_roles);
  check_plugin_roles(task_roles);
  if (!plugins_.mounts.items.empty()) put(out_, "mounts", plugins_.mounts, plugins_.mounts.loc);
  put(out_, "roles", roles, roles.loc);
  translate_openpai_retries(job_retry_, task_retries_, version->loc, reader_, diags_, out_);
  dropped_.report(diags_);

  Document translated;
  translated.file = doc_.file;
  translated.text = doc_.text;
  translated.root = std::move(out_);
  return translated;
}

void Translator::translate_root_field(const Node& key, const Node& value) {
  const std::string& name = key.scalar;
  if (name == "name") {
    translate_name(value);
  } else if (name == "description" || name == "hosts" || name == "portRange") {
    put(out_, name, value, key.loc);
  } else if (name == "type") {
    size_t index = 0;
    reader_.enumeration(value, "type", {"job"}, &index);
  } else if (name == "version" || name == "contributor") {
    drop(key, name, "job metadata");
  } else if (name == "parameters" || name == "secrets") {
    translate_parameters(key, value, name == "secrets");
  } else if (name == "jobRetryCount" && !value.is_null()) {
    job_retry_ = &value;
  } else if (name == "deployments" && !value.is_null()) {
    deployments_ = &value;
  } else if (name == "defaults") {
    translate_defaults(value);
  } else if (name == "extras") {
    plugins_ = translate_openpai_extras(value, reader_, diags_, dropped_);
  }
}

void Translator::translate_name(const Node& value) {
  std::string name;
  if (!reader_.string(value, "name", &name)) return;
  const std::string label = openpai_job_label(name);
  if (label == name) {
    put(out_, "name", value, value.loc);
    return;
  }
  if (label.empty()) {
    reader_.error(value, "name",
                  "the job name " + quote(name) + " has no letter or digit to make a DNS label of");
    return;
  }
  original_name_ = name;
  put(out_, "name", string_node(label, value.loc), value.loc);
  warn(value, "name",
       "the job is named " + quote(label) +
           ": pai job names are DNS labels (hostnames, "
           "Kubernetes and file names); the OpenPAI name " +
           quote(name) + " is kept in " + kOriginalNameEnv);
}

void Translator::translate_defaults(const Node& value) {
  if (value.is_null() || !reader_.free_mapping(value, "defaults")) return;
  for (const auto& [k, v] : value.entries) {
    const std::string path = join_path("defaults", k.scalar);
    if (k.scalar == "deployment") {
      selected_deployment_ = &v;
    } else if (k.scalar == "virtualCluster") {
      // OpenPAI's PAI_VIRTUAL_CLUSTER; the hosts come from --hosts or hosts.
      reader_.string(v, path, &virtual_cluster_);
    } else {
      drop(k, path, "");
    }
  }
}

void Translator::translate_parameters(const Node& key, const Node& value, bool secrets) {
  const std::string path = key.scalar;
  if (value.is_null() || !reader_.free_mapping(value, path)) return;
  if (parameters_.entries.empty()) parameters_.loc = value.loc;
  if (secrets && !value.entries.empty()) {
    warn(key, path,
         "secrets become parameters: their values are written in clear text into the commands "
         "in plan.json and roles/*.json like any parameter; keep the output folder private");
  }
  for (const auto& [name, item] : value.entries) {
    const std::string item_path = join_path(path, name.scalar);
    auto& names = secrets ? secret_names_ : parameter_names_;
    const auto& others = secrets ? parameter_names_ : secret_names_;
    if (others.count(name.scalar)) {
      reader_.error(name, item_path,
                    "parameter and secret " + quote(name.scalar) +
                        " have the same name: both become pai parameters");
      continue;
    }
    // describe() of a scalar would print the secret: say only what kind of node it is.
    if (secrets && !item.is_scalar()) {
      reader_.error(item, item_path, "expected a string or a number, got " + describe(item));
      continue;
    }
    names[name.scalar] = name.loc;
    parameters_.entries.emplace_back(name, item);
  }
}

void Translator::translate_prerequisites(const Node& node) {
  if (!reader_.list(node, "prerequisites", "a list of prerequisites")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string path = index_path("prerequisites", i);
    if (reader_.free_mapping(node.items[i], path)) translate_prerequisite(node.items[i], path);
  }
}

void Translator::translate_prerequisite(const Node& item, const std::string& path) {
  const Node* type = reader_.required(item, path, "type");
  const Node* name = reader_.required(item, path, "name");
  std::string prerequisite;
  size_t type_index = 0;
  if (!type || !name ||
      !reader_.enumeration(*type, join_path(path, "type"), kPrerequisiteTypes, &type_index) ||
      !reader_.string(*name, join_path(path, "name"), &prerequisite)) {
    return;
  }
  prerequisite_names_.emplace(prerequisite, name->loc);
  if (const Node* plugin = item.find("plugin"); plugin && type_index != 0) {
    translate_plugin_prerequisite(item, *plugin, path, prerequisite);
  }
  // data, script and output prerequisites are what the templates of the task roles naming
  // them read ($data.uri, ...): OpenPAI fetches nothing itself either.
  if (type_index != 0) {
    objects_[kPrerequisiteTypes[type_index]][prerequisite] = &item;
    return;
  }
  const Node* uri = reader_.required(item, path, "uri");
  std::string uri_text;
  if (uri && reader_.string(*uri, join_path(path, "uri"), &uri_text)) images_[prerequisite] = uri;
  if (const Node* auth = item.find("auth")) {
    drop(*auth, join_path(path, "auth"),
         "pai does not log in to registries: docker login on "
         "every host");
  }
}

void Translator::translate_plugin_prerequisite(const Node& item, const Node& plugin,
                                               const std::string& path, const std::string& name) {
  std::string text;
  if (!reader_.string(plugin, join_path(path, "plugin"), &text)) return;
  PluginPrerequisite entry;
  entry.at = &plugin;
  entry.plugin = text;
  if (text == std::string(kRuntimePluginPrefix) + "cmd") {
    // OpenPAI's runtime hands the cmd plugin every field but plugin, failurePolicy and type;
    // the plugin reads only its commands.
    std::vector<std::string> others;
    for (const auto& [key, value] : item.entries) {
      if (key.scalar != "callbacks" && key.scalar != "preCommands" && key.scalar != "postCommands")
        others.push_back(key.scalar);
    }
    cmd_prerequisites_.push_back(
        read_cmd_plugin(item, path, item.find("failurePolicy"), others, reader_, diags_));
    entry.cmd = cmd_prerequisites_.size() - 1;
  }
  plugin_prerequisites_[name] = entry;
}

void Translator::translate_role_prerequisites(const Node& node, const std::string& path,
                                              RoleInput& input) {
  std::vector<std::string> names;
  if (!reader_.string_list(node, path, &names)) return;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string item_path = index_path(path, i);
    if (!prerequisite_names_.count(names[i])) {
      std::vector<std::string> defined;
      for (const auto& [name, loc] : prerequisite_names_) defined.push_back(name);
      reader_.error(node.items[i], item_path,
                    "no prerequisite is named " + quote(names[i]) +
                        defined_names_hint(names[i], defined, "the file has no prerequisites"));
      continue;
    }
    // A prerequisite without a plugin means nothing to OpenPAI's runtime either.
    const auto it = plugin_prerequisites_.find(names[i]);
    if (it == plugin_prerequisites_.end()) continue;
    if (it->second.cmd != SIZE_MAX) {
      input.plugins.push_back(&cmd_prerequisites_[it->second.cmd]);
    } else {
      drop(node.items[i], item_path,
           "prerequisite " + quote(names[i]) + "'s plugin " + quote(it->second.plugin));
    }
  }
}

void Translator::check_plugin_roles(const Node* task_roles) {
  for (const CmdPlugin& plugin : plugins_.commands) {
    if (!plugin.task_roles_node) continue;
    for (std::size_t i = 0; i < plugin.task_roles.size(); ++i) {
      if (task_roles && task_roles->is_mapping() && task_roles->find(plugin.task_roles[i]))
        continue;
      std::vector<std::string> names;
      if (task_roles && task_roles->is_mapping()) {
        for (const auto& [key, value] : task_roles->entries) names.push_back(key.scalar);
      }
      warn(plugin.task_roles_node->items[i], index_path(join_path(plugin.path, "taskroles"), i),
           "the cmd plugin names no task role " + quote(plugin.task_roles[i]) +
               defined_names_hint(plugin.task_roles[i], names, "the file has no taskRoles"));
    }
  }
}

void Translator::translate_roles(const Node& task_roles, Node& roles) {
  std::vector<std::string> names;
  for (const auto& [key, value] : task_roles.entries) names.push_back(key.scalar);
  deployment_ = select_deployment(deployments_, selected_deployment_, names, reader_, dropped_);
  // An OpenPAI MPI job runs mpirun from its launcher role, as pai's mpi framework does.
  if (const Node* launcher = task_roles.find("launcher")) {
    mpi_ = true;
    put(out_, "framework", string_node("mpi", launcher->loc), launcher->loc);
  }
  for (const auto& [key, value] : task_roles.entries) translate_role(key, value, roles);
}

void Translator::translate_role(const Node& key, const Node& value, Node& roles) {
  const std::string path = join_path("taskRoles", key.scalar);
  if (!reader_.mapping(value, path, kTaskRoleKeys)) return;
  const std::string name = openpai_role_name(key.scalar);
  if (roles.find(name)) {
    reader_.error(key, path,
                  "task role " + quote(key.scalar) + " becomes role " + quote(name) +
                      ", the name of an earlier task role's pai role");
    return;
  }
  if (name != key.scalar) {
    warn(key, path,
         "task role " + quote(key.scalar) + " becomes role " + quote(name) +
             ": pai role names are part of env var names (PAI_TASK_ROLE_TASK_COUNT_" + name + ")");
  }
  Node& role = put(roles, name, mapping_node(value.loc), key.loc);
  RoleInput input;
  input.name = key.scalar;
  input.scope.parameters = &parameter_names_;
  input.scope.secrets = &secret_names_;
  input.scope.role = key.scalar;
  for (const auto& [field, item] : value.entries) {
    if (!item.is_null())
      translate_role_field(field, item, join_path(path, field.scalar), input, role);
  }
  if (!value.find("dockerImage")) roles_without_image_.push_back(key.scalar);
  for (const CmdPlugin& plugin : plugins_.commands) {
    if (cmd_plugin_applies(plugin, key.scalar)) input.plugins.push_back(&plugin);
  }
  translate_commands(input, role);
  complete_role(key, value, role);
  add_role_env(key.loc, role);
}

void Translator::complete_role(const Node& key, const Node& value, Node& role) {
  // OpenPAI's defaults (k8s.js): a minFailedInstances that is absent, null or 0 is 1, such a
  // minSucceededInstances the role's instance count (instances: 1 when absent).
  Node& completion = child_mapping(role, "completion", key.loc);
  if (!completion.find("minFailed")) {
    put(completion, "minFailed", plain_node("1", key.loc), key.loc);
  }
  const Node* instances = value.find("instances");
  if (!completion.find("minSucceeded") &&
      (!instances || (instances->is_scalar() && !instances->quoted))) {
    put(completion, "minSucceeded", plain_node(instances ? instances->scalar : "1", key.loc),
        key.loc);
  }
  Node& ports = child_mapping(role, "ports", key.loc);
  for (const char* label : kAlwaysPorts) {
    if (!ports.find(label)) put(ports, label, plain_node("1", key.loc), key.loc);
  }
}

void Translator::translate_role_field(const Node& field, const Node& item, const std::string& path,
                                      RoleInput& input, Node& role) {
  const std::string& name = field.scalar;
  if (name == "instances") {
    put(role, "instances", item, field.loc);
  } else if (name == "completion") {
    translate_completion(item, path, role);
  } else if (name == "taskRetryCount") {
    int count = 0;
    if (reader_.integer(item, path, 0, INT32_MAX, &count))
      task_retries_.push_back({&item, path, count});
  } else if (name == "dockerImage") {
    translate_image(item, path, input.name);
  } else if (name == "data" || name == "output" || name == "script") {
    std::string object;
    if (!reader_.string(item, path, &object)) return;
    const auto& defined = objects_[name];
    const auto it = defined.find(object);
    if (it != defined.end()) {
      input.scope.prerequisites[name] = it->second;
      return;
    }
    std::vector<std::string> names;
    for (const auto& [n, node] : defined) names.push_back(n);
    reader_.error(
        item, path,
        "no prerequisite of type " + name + " is named " + quote(object) +
            defined_names_hint(object, names, "the file has no " + name + " prerequisites"));
  } else if (name == "extraContainerOptions") {
    translate_container_options(item, path, role);
  } else if (name == "resourcePerInstance") {
    translate_resources(item, path, role);
  } else if (name == "commands") {
    input.commands = &item;
    input.commands_path = path;
  } else if (name == "prerequisites") {
    translate_role_prerequisites(item, path, input);
  } else if (name == "protocolVersion") {
    drop(field, path, "task role metadata");
  }
}

void Translator::translate_resources(const Node& node, const std::string& path, Node& role) {
  if (!reader_.mapping(node, path, kResourceKeys)) return;
  Node& resources = child_mapping(role, "resources", node.loc);
  for (const auto& [key, value] : node.entries) {
    if (value.is_null()) continue;
    if (key.scalar == "gpu" || key.scalar == "cpu") {
      put(resources, key.scalar, value, key.loc);
    } else if (key.scalar == "memoryMB") {
      std::int64_t mb = 0;
      if (reader_.integer(value, join_path(path, "memoryMB"), 1, INT32_MAX, &mb)) {
        put(resources, "memory", string_node(std::to_string(mb) + "Mi", value.loc), key.loc);
      }
    } else if (key.scalar == "ports") {
      translate_ports(value, join_path(path, "ports"), role);
    }
  }
}

void Translator::translate_ports(const Node& node, const std::string& path, Node& role) {
  if (!reader_.free_mapping(node, path)) return;
  Node& ports = put(role, "ports", mapping_node(node.loc), node.loc);
  for (const auto& [label, count] : node.entries) {
    // OpenPAI's protocol gives 0 as a port count's default, and its examples use it for a
    // port their commands then read ($PAI_CONTAINER_HOST_<label>_PORT_LIST).
    if (count.is_scalar() && !count.quoted && count.scalar == "0") {
      warn(count, join_path(path, label.scalar),
           "0 ports: pai reserves 1 port labelled " + label.scalar +
               ", the port the commands "
               "read from PAI_CONTAINER_HOST_" +
               label.scalar + "_PORT_LIST");
      put(ports, label.scalar, plain_node("1", count.loc), label.loc);
      continue;
    }
    put(ports, label.scalar, count, label.loc);
  }
}

void Translator::translate_completion(const Node& node, const std::string& path, Node& role) {
  if (!reader_.mapping(node, path, kCompletionKeys)) return;
  Node& completion = child_mapping(role, "completion", node.loc);
  for (const auto& [key, value] : node.entries) {
    const std::string target = key.scalar == "minFailedInstances" ? "minFailed" : "minSucceeded";
    // null and 0 take OpenPAI's defaults (complete_role).
    if (value.is_null() || (value.is_scalar() && !value.quoted && value.scalar == "0")) continue;
    put(completion, target, value, key.loc);
  }
}

void Translator::translate_container_options(const Node& node, const std::string& path,
                                             Node& role) {
  if (!reader_.free_mapping(node, path)) return;
  for (const auto& [key, value] : node.entries) {
    const std::string key_path = join_path(path, key.scalar);
    std::int64_t mb = 0;
    if (key.scalar != "shmMB") {
      drop(key, key_path, "");
    } else if (reader_.integer(value, key_path, 1, INT32_MAX, &mb)) {
      Node& resources = child_mapping(role, "resources", node.loc);
      put(resources, "shm", string_node(std::to_string(mb) + "Mi", value.loc), key.loc);
    }
  }
}

void Translator::translate_commands(const RoleInput& input, Node& role) {
  if (!input.commands ||
      !reader_.list(*input.commands, input.commands_path, "a list of commands")) {
    return;
  }
  const auto deployed = deployment_.find(input.name);
  const RoleDeployment none;
  const RoleDeployment& deployment = deployed == deployment_.end() ? none : deployed->second;
  std::string script =
      role_script(deployment, *input.commands, input.commands_path, input.scope, reader_, diags_);
  const std::string pre = cmd_plugin_script(input.plugins, false, input.scope, reader_, diags_);
  const std::string post = cmd_plugin_script(input.plugins, true, input.scope, reader_, diags_);
  // OpenPAI runs the cmd plugins' commands in scripts of their own, before the task role's
  // and, once those succeeded, after them: an `exit` in the commands still runs the post
  // commands.
  if (!post.empty()) script = "(\n" + script + "\n)\n" + post;
  script = pre + script;
  const Node& commands = *input.commands;
  // A one-line command points at its line; several lines at the list.
  const Location loc = commands.items.size() == 1 && !deployment.pre_commands &&
                               !deployment.post_commands && input.plugins.empty()
                           ? commands.items[0].loc
                           : commands.loc;
  Node argv = sequence_node(loc);
  // OpenPAI's runtime runs the commands in a bash script headed by these options
  // (openpai-runtime src/runtime.d/user.sh): a failing command ends the task.
  for (const char* word : {"/bin/bash", "-o", "errexit", "-o", "nounset", "-o", "pipefail", "-c"}) {
    argv.items.push_back(string_node(word, loc));
  }
  argv.items.push_back(string_node(script, loc));
  put(role, "command", std::move(argv), loc);
}

void Translator::add_role_env(const Location& loc, Node& role) {
  std::vector<std::pair<std::string, std::string>> env;
  if (!original_name_.empty()) env.emplace_back(kOriginalNameEnv, original_name_);
  // What OpenPAI's rest-server exports besides the env contract's (runtime-env.js): the
  // virtual cluster (defaults.virtualCluster, "default" without one) and an empty default
  // file system.
  env.emplace_back("PAI_VIRTUAL_CLUSTER", virtual_cluster_);
  env.emplace_back("PAI_DEFAULT_FS_URI", "");
  // The ssh plugin lets a task role's mpirun reach the others; pai's remote shell agent
  // does that without ssh (an mpi job's roles get it from the env contract already).
  if (plugins_.remote_shell && !mpi_) {
    env.emplace_back("OMPI_MCA_plm_rsh_agent", "pai-launch rsh");
    env.emplace_back("OMPI_MCA_plm_rsh_no_tree_spawn", "1");
    env.emplace_back("OMPI_MCA_orte_leave_session_attached", "1");
  }
  Node& map = put(role, "env", mapping_node(loc), loc);
  for (const auto& [name, value] : env) put(map, name, string_node(value, loc), loc);
}

void Translator::translate_image(const Node& node, const std::string& path,
                                 const std::string& role) {
  std::string name;
  if (!reader_.string(node, path, &name)) return;
  const auto it = images_.find(name);
  if (it == images_.end()) {
    std::vector<std::string> defined;
    for (const auto& [image, uri] : images_) defined.push_back(image);
    reader_.error(
        node, path,
        "no prerequisite of type dockerimage is named " + quote(name) +
            defined_names_hint(name, defined, "the file has no dockerimage prerequisites"));
    return;
  }
  image_uses_.push_back({role, it->second});
}

void Translator::translate_images(const Node* task_roles) {
  if (image_uses_.empty()) return;
  const ImageUse& first = image_uses_.front();
  for (const ImageUse& use : image_uses_) {
    if (use.uri->scalar == first.uri->scalar) continue;
    reader_.error(*use.uri, "taskRoles." + use.role + ".dockerImage",
                  "task role " + use.role + " uses image " + quote(use.uri->scalar) +
                      " but task role " + first.role + " uses " + quote(first.uri->scalar) +
                      ": pai runs every role of a job in one image");
  }
  for (const std::string& role : roles_without_image_) {
    reader_.error(*task_roles->find(role), "taskRoles." + role,
                  "task role " + role + " has no dockerImage but task role " + first.role +
                      " runs in " + quote(first.uri->scalar) +
                      ": pai runs every role of a job in one runtime");
  }
  put(out_, "image", *first.uri, first.uri->loc);
  put(out_, "runtime", string_node("docker", first.uri->loc), first.uri->loc);
}

}  // namespace

bool is_openpai_protocol(const Document& doc) {
  return doc.root.is_mapping() && doc.root.find("protocolVersion") != nullptr;
}

Document translate_openpai(const Document& doc, Diagnostics& diags) {
  return Translator(doc, diags).run();
}

}  // namespace pai
