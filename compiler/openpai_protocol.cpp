#include "compiler/openpai_protocol.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/did_you_mean.h"
#include "compiler/field_reader.h"

namespace pai {

namespace {

const std::vector<std::string> kTopKeys = {
    "protocolVersion", "name",          "type",     "version",  "contributor",
    "description",     "prerequisites", "parameters", "secrets", "jobRetryCount",
    "taskRoles",       "deployments",   "defaults", "extras",   "hosts"};
const std::vector<std::string> kTaskRoleKeys = {
    "instances", "completion", "taskRetryCount",        "dockerImage",        "data",
    "output",    "script",     "extraContainerOptions", "resourcePerInstance", "commands"};
const std::vector<std::string> kResourceKeys = {"gpu", "cpu", "memoryMB", "ports"};
const std::vector<std::string> kCompletionKeys = {"minFailedInstances", "minSucceededInstances"};
const char kRuntimePlugin[] = "com.microsoft.pai.runtimeplugin";

Node scalar_node(const std::string& text, const Location& loc) {
  Node n;
  n.kind = Node::Kind::Scalar;
  n.scalar = text;
  n.quoted = true;
  n.loc = loc;
  return n;
}

Node mapping_node(const Location& loc) {
  Node n;
  n.kind = Node::Kind::Mapping;
  n.loc = loc;
  return n;
}

// Adds `key: value` to mapping `map`, the key located at `key_loc`.
Node& put(Node& map, const std::string& key, Node value, const Location& key_loc) {
  map.entries.emplace_back(scalar_node(key, key_loc), std::move(value));
  map.entries.back().first.quoted = false;
  return map.entries.back().second;
}

// The value of `key` in `map`, created as an empty mapping at `loc` when absent.
Node& child_mapping(Node& map, const std::string& key, const Location& loc) {
  for (auto& [k, v] : map.entries) {
    if (k.scalar == key) return v;
  }
  return put(map, key, mapping_node(loc), loc);
}

std::vector<std::string> keys_of(const std::map<std::string, Location>& names) {
  std::vector<std::string> keys;
  for (const auto& [name, loc] : names) keys.push_back(name);
  return keys;
}

// " (did you mean "x"? defined: a, b)" in the form of undefined-parameter errors, or
// " (<none>)" when there is nothing to choose from.
std::string defined_hint(const std::string& name, const std::vector<std::string>& defined,
                         const std::string& none) {
  if (defined.empty()) return " (" + none + ")";
  std::string hint = " (";
  const std::string suggestion = closest_match(name, defined);
  if (!suggestion.empty()) hint += "did you mean \"" + suggestion + "\"? ";
  hint += "defined: ";
  for (size_t i = 0; i < defined.size(); ++i) hint += (i ? ", " : "") + defined[i];
  return hint + ")";
}

class Translator {
 public:
  Translator(const Document& doc, Diagnostics& diags)
      : doc_(doc), diags_(diags), reader_(diags, locations_, &doc.text) {}

  Document run();

 private:
  void warn(const Node& at, const std::string& path, const std::string& message) {
    diags_.warning(at.loc, path, message);
  }
  void translate_parameters(const Node& key, const Node& value, bool secrets);
  void translate_prerequisites(const Node& node);
  void translate_role(const Node& key, const Node& value, Node& roles);
  void translate_resources(const Node& node, const std::string& path, Node& role);
  void translate_completion(const Node& node, const std::string& path, Node& role);
  void translate_container_options(const Node& node, const std::string& path, Node& role);
  void translate_commands(const Node& node, const std::string& path, Node& role);
  std::string translate_templates(const Node& item, const std::string& path);
  void translate_image(const Node& node, const std::string& path, const std::string& role);
  void translate_extras(const Node& node);
  void translate_runtime_plugins(const Node& node, const std::string& path);
  void translate_retries();

  const Document& doc_;
  Diagnostics& diags_;
  std::map<std::string, Location> locations_;
  FieldReader reader_;
  Node out_;
  Node parameters_;
  std::map<std::string, Location> parameter_names_, secret_names_;
  std::map<std::string, const Node*> images_;  // dockerimage prerequisite name -> uri node
  struct ImageUse {
    std::string role;
    const Node* uri = nullptr;
  };
  std::vector<ImageUse> image_uses_;
  std::vector<std::string> roles_without_image_;
  const Node* job_retry_ = nullptr;
  int job_retry_count_ = 0;
  struct TaskRetry {
    const Node* node;
    std::string path;
    int count;
  };
  std::vector<TaskRetry> task_retries_;
  Node mounts_;
};

Document Translator::run() {
  const Node& root = doc_.root;
  out_ = mapping_node(root.loc);
  parameters_ = mapping_node(root.loc);
  mounts_ = Node();
  mounts_.kind = Node::Kind::Sequence;
  reader_.mapping(root, "", kTopKeys);
  const Node* version = root.find("protocolVersion");
  int protocol = 0;
  reader_.integer(*version, "protocolVersion", 2, 2, &protocol,
                  "2 (the OpenPAI job protocol version pai reads)");
  put(out_, "apiVersion", scalar_node("pai/v1", version->loc), version->loc);
  put(out_, "kind", scalar_node("Job", version->loc), version->loc);

  // Prerequisites first: roles refer to their docker images by name.
  if (const Node* n = reader_.optional(root, "", "prerequisites")) translate_prerequisites(*n);
  const Node* task_roles = nullptr;
  for (const auto& [key, value] : root.entries) {
    const std::string& name = key.scalar;
    if (name == "name" || name == "description" || name == "hosts") {
      put(out_, name, value, key.loc);
    } else if (name == "type") {
      size_t index = 0;
      reader_.enumeration(value, "type", {"job"}, &index);
    } else if (name == "version" || name == "contributor") {
      warn(key, name, "ignored: OpenPAI job metadata with no meaning in pai");
    } else if (name == "parameters" || name == "secrets") {
      translate_parameters(key, value, name == "secrets");
    } else if (name == "jobRetryCount" && !value.is_null()) {
      if (reader_.integer(value, name, 0, INT32_MAX, &job_retry_count_)) job_retry_ = &value;
    } else if (name == "taskRoles") {
      task_roles = &value;
    } else if (name == "deployments") {
      warn(key, name, "ignored: OpenPAI deployments have no meaning in pai");
    } else if (name == "defaults" && reader_.free_mapping(value, name)) {
      for (const auto& [k, v] : value.entries) {
        warn(k, join_path(name, k.scalar),
             "ignored: defaults." + k.scalar + " has no meaning in pai (the hosts come from "
             "--hosts or hosts)");
      }
    } else if (name == "extras") {
      translate_extras(value);
    }
  }
  if (!parameters_.entries.empty()) put(out_, "parameters", parameters_, parameters_.loc);

  Node roles = mapping_node(task_roles ? task_roles->loc : root.loc);
  if (task_roles && reader_.free_mapping(*task_roles, "taskRoles")) {
    for (const auto& [key, value] : task_roles->entries) translate_role(key, value, roles);
    // An OpenPAI MPI job runs mpirun from its launcher role, as pai's mpi framework does.
    if (const Node* launcher = task_roles->find("launcher")) {
      put(out_, "framework", scalar_node("mpi", launcher->loc), launcher->loc);
    }
  }
  if (!image_uses_.empty()) {
    const ImageUse& first = image_uses_.front();
    for (const ImageUse& use : image_uses_) {
      if (use.uri->scalar == first.uri->scalar) continue;
      reader_.error(*use.uri, "taskRoles." + use.role + ".dockerImage",
                    "task role " + use.role + " uses image " + quote(use.uri->scalar) +
                        " but task role " + first.role + " uses " + quote(first.uri->scalar) +
                        ": pai runs every role of a job in one image");
    }
    for (const std::string& role : roles_without_image_) {
      const Node& at = *task_roles->find(role);
      reader_.error(at, "taskRoles." + role,
                    "task role " + role + " has no dockerImage but task role " + first.role +
                        " runs in " + quote(first.uri->scalar) +
                        ": pai runs every role of a job in one runtime");
    }
    put(out_, "image", *first.uri, first.uri->loc);
    put(out_, "runtime", scalar_node("docker", first.uri->loc), first.uri->loc);
  }
  if (!mounts_.items.empty()) put(out_, "mounts", mounts_, mounts_.items.front().loc);
  put(out_, "roles", roles, roles.loc);
  translate_retries();

  Document translated;
  translated.file = doc_.file;
  translated.text = doc_.text;
  translated.root = std::move(out_);
  return translated;
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
    if (secrets) {
      // describe() of a scalar would print the secret: say only what kind of node it is.
      if (!item.is_scalar()) {
        reader_.error(item, item_path,
                      "expected a string or a number, got " + describe(item));
        continue;
      }
    }
    names[name.scalar] = name.loc;
    parameters_.entries.emplace_back(name, item);
  }
}

void Translator::translate_prerequisites(const Node& node) {
  if (!reader_.list(node, "prerequisites", "a list of prerequisites")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const Node& item = node.items[i];
    const std::string path = index_path("prerequisites", i);
    if (!reader_.free_mapping(item, path)) continue;
    const Node* type = reader_.required(item, path, "type");
    const Node* name = reader_.required(item, path, "name");
    std::string type_name, prerequisite;
    if (!type || !name || !reader_.string(*type, join_path(path, "type"), &type_name) ||
        !reader_.string(*name, join_path(path, "name"), &prerequisite)) {
      continue;
    }
    if (type_name != "dockerimage") {
      warn(*type, join_path(path, "type"),
           "ignored: OpenPAI prerequisites of type " + type_name +
               " are not fetched by pai; put them on the hosts or into the image");
      continue;
    }
    const Node* uri = reader_.required(item, path, "uri");
    std::string uri_text;
    if (uri && reader_.string(*uri, join_path(path, "uri"), &uri_text)) images_[prerequisite] = uri;
    for (const auto& [key, value] : item.entries) {
      if (key.scalar == "type" || key.scalar == "name" || key.scalar == "uri") continue;
      const std::string key_path = join_path(path, key.scalar);
      if (key.scalar == "auth") {
        warn(key, key_path,
             "ignored: pai does not log in to registries; run docker login on every host");
      } else {
        warn(key, key_path, "ignored: " + key.scalar + " has no meaning in pai");
      }
    }
  }
}

void Translator::translate_role(const Node& key, const Node& value, Node& roles) {
  const std::string path = join_path("taskRoles", key.scalar);
  if (!reader_.mapping(value, path, kTaskRoleKeys)) return;
  Node& role = put(roles, key.scalar, mapping_node(value.loc), key.loc);
  bool has_image = false;
  for (const auto& [field, item] : value.entries) {
    const std::string& name = field.scalar;
    const std::string item_path = join_path(path, name);
    if (item.is_null()) continue;
    if (name == "instances") {
      put(role, "instances", item, field.loc);
    } else if (name == "completion") {
      translate_completion(item, item_path, role);
    } else if (name == "taskRetryCount") {
      int count = 0;
      if (reader_.integer(item, item_path, 0, INT32_MAX, &count)) {
        task_retries_.push_back({&item, item_path, count});
      }
    } else if (name == "dockerImage") {
      has_image = true;
      translate_image(item, item_path, key.scalar);
    } else if (name == "data" || name == "output" || name == "script") {
      warn(field, item_path,
           "ignored: OpenPAI " + name + " prerequisites are not fetched by pai; put them on "
           "the hosts or into the image");
    } else if (name == "extraContainerOptions") {
      translate_container_options(item, item_path, role);
    } else if (name == "resourcePerInstance") {
      translate_resources(item, item_path, role);
    } else if (name == "commands") {
      translate_commands(item, item_path, role);
    }
  }
  if (!has_image) roles_without_image_.push_back(key.scalar);
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
        put(resources, "memory", scalar_node(std::to_string(mb) + "Mi", value.loc), key.loc);
      }
    } else if (key.scalar == "ports") {
      put(role, "ports", value, key.loc);
    }
  }
}

void Translator::translate_completion(const Node& node, const std::string& path, Node& role) {
  if (!reader_.mapping(node, path, kCompletionKeys)) return;
  Node& completion = child_mapping(role, "completion", node.loc);
  for (const auto& [key, value] : node.entries) {
    const std::string target =
        key.scalar == "minFailedInstances" ? "minFailed" : "minSucceeded";
    // OpenPAI's null means "never fail" / "when all instances succeeded": pai's -1.
    Node unset = scalar_node("-1", value.loc);
    unset.quoted = false;
    put(completion, target, value.is_null() ? unset : value, key.loc);
  }
}

void Translator::translate_container_options(const Node& node, const std::string& path,
                                             Node& role) {
  if (!reader_.free_mapping(node, path)) return;
  for (const auto& [key, value] : node.entries) {
    const std::string key_path = join_path(path, key.scalar);
    std::int64_t mb = 0;
    if (key.scalar != "shmMB") {
      warn(key, key_path, "ignored: " + key.scalar + " has no meaning in pai");
    } else if (reader_.integer(value, key_path, 1, INT32_MAX, &mb)) {
      Node& resources = child_mapping(role, "resources", node.loc);
      put(resources, "shm", scalar_node(std::to_string(mb) + "Mi", value.loc), key.loc);
    }
  }
}

void Translator::translate_commands(const Node& node, const std::string& path, Node& role) {
  if (!reader_.list(node, path, "a list of commands")) return;
  std::string command;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    std::string line;
    if (!reader_.string(node.items[i], item_path, &line)) continue;
    command += (i == 0 ? "" : "\n") + translate_templates(node.items[i], item_path);
  }
  // A one-line command points at its line; several lines at the list.
  const Location loc = node.items.size() == 1 ? node.items[0].loc : node.loc;
  put(role, "command", scalar_node(command, loc), loc);
}

std::string Translator::translate_templates(const Node& item, const std::string& path) {
  const std::string& text = item.scalar;
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("<%", pos);
    const size_t close = open == std::string::npos ? open : text.find("%>", open + 2);
    if (close == std::string::npos) break;
    out.append(text, pos, open - pos);
    const std::string whole = text.substr(open, close + 2 - open);
    std::string inner = text.substr(open + 2, close - open - 2);
    inner.erase(0, inner.find_first_not_of(" \t"));
    inner.erase(inner.find_last_not_of(" \t") + 1);
    pos = close + 2;
    const bool secret = inner.rfind("$secrets.", 0) == 0;
    const bool parameter = inner.rfind("$parameters.", 0) == 0;
    const std::string name = inner.substr(inner.find('.') + 1);
    if ((!secret && !parameter) || !is_env_name(name)) {
      diags_.error(reader_.locate(item, open), path,
                   "unsupported OpenPAI template " + whole +
                       ": only <% $parameters.NAME %> and <% $secrets.NAME %> are translated");
      out += whole;
      continue;
    }
    const auto& names = secret ? secret_names_ : parameter_names_;
    if (!names.count(name)) {
      const std::vector<std::string> defined = keys_of(names);
      diags_.error(reader_.locate(item, open), path,
                   std::string("undefined ") + (secret ? "secret " : "parameter ") + quote(name) +
                       " in " + whole +
                       defined_hint(name, defined,
                                    secret ? "the file defines no secrets"
                                           : "the file defines no parameters"));
      out += whole;
      continue;
    }
    out += "${parameters." + name + "}";
  }
  out.append(text, pos, std::string::npos);
  return out;
}

void Translator::translate_image(const Node& node, const std::string& path,
                                 const std::string& role) {
  std::string name;
  if (!reader_.string(node, path, &name)) return;
  const auto it = images_.find(name);
  if (it == images_.end()) {
    std::vector<std::string> defined;
    for (const auto& [image, uri] : images_) defined.push_back(image);
    reader_.error(node, path,
                  "no prerequisite of type dockerimage is named " + quote(name) +
                      defined_hint(name, defined, "the file has no dockerimage prerequisites"));
    return;
  }
  image_uses_.push_back({role, it->second});
}

void Translator::translate_extras(const Node& node) {
  if (!reader_.free_mapping(node, "extras")) return;
  for (const auto& [key, value] : node.entries) {
    const std::string path = join_path("extras", key.scalar);
    if (key.scalar == kRuntimePlugin) {
      translate_runtime_plugins(value, path);
    } else {
      warn(key, path, "ignored: extras." + key.scalar + " has no meaning in pai");
    }
  }
}

void Translator::translate_runtime_plugins(const Node& node, const std::string& path) {
  if (!reader_.list(node, path, "a list of runtime plugins")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const Node& item = node.items[i];
    const std::string item_path = index_path(path, i);
    if (!reader_.free_mapping(item, item_path)) continue;
    const Node* plugin = reader_.required(item, item_path, "plugin");
    std::string plugin_name;
    if (!plugin || !reader_.string(*plugin, join_path(item_path, "plugin"), &plugin_name)) {
      continue;
    }
    const Node* parameters = item.find("parameters");
    const Node* names = parameters && parameters->is_mapping()
                            ? parameters->find("storageConfigNames")
                            : nullptr;
    if (plugin_name != "teamwise_storage" || !names) {
      warn(*plugin, join_path(item_path, "plugin"),
           "ignored: runtime plugin " + quote(plugin_name) + " has no meaning in pai");
      continue;
    }
    const std::string names_path = join_path(item_path, "parameters.storageConfigNames");
    std::vector<std::string> storages;
    if (!reader_.string_list(*names, names_path, &storages)) continue;
    for (size_t k = 0; k < storages.size(); ++k) {
      const Node& at = names->items[k];
      const std::string mount_path = "/mnt/" + storages[k];
      Node mount = mapping_node(at.loc);
      put(mount, "name", at, at.loc);
      put(mount, "source", scalar_node(mount_path, at.loc), at.loc);
      put(mount, "target", scalar_node(mount_path, at.loc), at.loc);
      mounts_.items.push_back(std::move(mount));
      warn(at, index_path(names_path, k),
           "storage " + quote(storages[k]) + " becomes mount " + mount_path + " -> " +
               mount_path + " (OpenPAI's mount point): it must be mounted at " + mount_path +
               " on every host");
    }
  }
}

void Translator::translate_retries() {
  // OpenPAI retries the whole job (jobRetryCount) and, separately, each failed task in
  // place (taskRetryCount). pai has one restart budget per job: sync mode restarts every
  // instance, async mode only the failed one.
  if (job_retry_) {
    Node& ft = child_mapping(out_, "faultTolerance", job_retry_->loc);
    Node& restart = child_mapping(ft, "restart", job_retry_->loc);
    put(restart, "maxRestarts", *job_retry_, job_retry_->loc);
    for (const TaskRetry& t : task_retries_) {
      if (t.count == job_retry_count_) continue;
      warn(*t.node, t.path,
           "taskRetryCount " + std::to_string(t.count) + " is not applied: pai has one restart "
           "budget per job, faultTolerance.restart.maxRestarts " +
               std::to_string(job_retry_count_) +
               " from jobRetryCount, and restarts every instance (sync mode)");
    }
    return;
  }
  int largest = 0;
  for (const TaskRetry& t : task_retries_) largest = std::max(largest, t.count);
  if (largest == 0) {
    // OpenPAI's jobRetryCount defaults to 0: no restarts, unlike pai's default budget.
    const Location& loc = doc_.root.find("protocolVersion")->loc;
    Node none = scalar_node("0", loc);
    none.quoted = false;
    Node& ft = child_mapping(out_, "faultTolerance", loc);
    put(child_mapping(ft, "restart", loc), "maxRestarts", none, loc);
    return;
  }
  const TaskRetry& chosen = *std::find_if(task_retries_.begin(), task_retries_.end(),
                                          [&](const TaskRetry& t) { return t.count == largest; });
  Node& ft = child_mapping(out_, "faultTolerance", chosen.node->loc);
  put(ft, "mode", scalar_node("async", chosen.node->loc), chosen.node->loc);
  Node& restart = child_mapping(ft, "restart", chosen.node->loc);
  put(restart, "maxRestarts", *chosen.node, chosen.node->loc);
  for (const TaskRetry& t : task_retries_) {
    if (t.count == 0) continue;
    warn(*t.node, t.path,
         "taskRetryCount " + std::to_string(t.count) + " becomes faultTolerance mode async "
         "with maxRestarts " + std::to_string(largest) +
             ": pai restarts only the failed instance, but from one budget for the whole job, "
             "not one per instance");
  }
}

}  // namespace

bool is_openpai_protocol(const Document& doc) {
  return doc.root.is_mapping() && doc.root.find("protocolVersion") != nullptr;
}

Document translate_openpai(const Document& doc, Diagnostics& diags) {
  return Translator(doc, diags).run();
}

}  // namespace pai
