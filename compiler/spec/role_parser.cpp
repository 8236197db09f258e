#include "compiler/spec/role_parser.h"

#include <algorithm>
#include <cstdint>

#include "compiler/document/parameters.h"
#include "compiler/spec/exec_limits.h"

namespace pai {

namespace {

const std::vector<std::string> kRoleKeys = {
    "instances", "nprocPerNode", "envConvention", "resources", "command",
    "workingDir", "env",          "ports",         "completion"};
const std::vector<std::string> kResourceKeys = {"gpu", "cpu", "memory", "shm"};
const std::vector<std::string> kCompletionKeys = {"minSucceeded", "minFailed"};

bool is_port_label(const std::string& s) {
  return !s.empty() && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) &&
         is_env_name(s);
}

void parse_resources(const Node& node, const std::string& path, FieldReader& reader,
                     Resources* out) {
  if (!reader.mapping(node, path, kResourceKeys)) return;
  if (const Node* n = reader.optional(node, path, "gpu")) {
    reader.integer(*n, join_path(path, "gpu"), 0, 1024, &out->gpu);
  }
  if (const Node* n = reader.optional(node, path, "cpu")) {
    reader.number(*n, join_path(path, "cpu"), "a number greater than 0",
                  [](double v) { return v > 0; }, &out->cpu);
  }
  if (const Node* n = reader.optional(node, path, "memory")) {
    reader.quantity(*n, join_path(path, "memory"), 0, &out->memory_bytes);
  }
  if (const Node* n = reader.optional(node, path, "shm")) {
    reader.quantity(*n, join_path(path, "shm"), 0, &out->shm_bytes);
  }
}

void parse_command(const Node& node, const std::string& path,
                   const std::map<std::string, std::string>& parameters, FieldReader& reader,
                   std::vector<std::string>* out) {
  if (node.is_scalar()) {
    std::string script = reader.substitute(node, node.scalar, parameters, path);
    if (const std::string problem = exec_string_problem(script); !problem.empty()) {
      reader.error(node, path, "the command " + problem);
    }
    *out = {"/bin/sh", "-c", std::move(script)};
    return;
  }
  if (!node.is_sequence()) {
    reader.error(node, path, "expected a string or a list of strings, got " + describe(node));
    return;
  }
  if (node.items.empty()) {
    reader.error(node, path, "expected a string or a list of strings, got an empty list");
    return;
  }
  std::vector<std::string> argv;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    const Node& item = node.items[i];
    reader.record(item_path, item);
    std::string word;
    if (reader.string(item, item_path, &word)) {
      argv.push_back(reader.substitute(item, word, parameters, item_path));
      if (const std::string problem = exec_string_problem(argv.back()); !problem.empty()) {
        reader.error(item, item_path, "the argument " + problem);
      }
    }
  }
  *out = std::move(argv);
}

void parse_env(const Node& node, const std::string& path,
               const std::map<std::string, std::string>& parameters, FieldReader& reader,
               Role* role) {
  if (!reader.free_mapping(node, path)) return;
  for (const auto& [key, value] : node.entries) {
    const std::string name = key.scalar;
    const std::string var_path = join_path(path, name);
    reader.record(var_path, value.is_scalar() ? value : key);
    if (!key.is_scalar() || !is_env_name(name)) {
      reader.error(key, path,
                   "env name " + (key.is_scalar() ? quote(name) : describe(key)) +
                       " must match [A-Za-z_][A-Za-z0-9_]*");
      continue;
    }
    std::string text;
    if (reader.scalar_value(value, var_path, &text)) {
      role->env.emplace_back(name, reader.substitute(value, text, parameters, var_path));
      const std::string entry = name + "=" + role->env.back().second;
      if (const std::string problem = exec_string_problem(entry); !problem.empty()) {
        reader.error(value, var_path, name + "=value " + problem);
      }
    }
  }
  std::sort(role->env.begin(), role->env.end());
}

void parse_ports(const Node& node, const std::string& path, FieldReader& reader, Role* role) {
  if (!reader.free_mapping(node, path)) return;
  for (const auto& [key, value] : node.entries) {
    const std::string label_path = join_path(path, key.scalar);
    reader.record(label_path, value.is_scalar() ? value : key);
    if (!key.is_scalar() || !is_port_label(key.scalar)) {
      reader.error(key, path,
                   "port label " + (key.is_scalar() ? quote(key.scalar) : describe(key)) +
                       " must match [A-Za-z][A-Za-z0-9_]*");
      continue;
    }
    PortRequest request{key.scalar, 1};
    if (reader.integer(value, label_path, 1, 100, &request.count)) {
      role->ports.push_back(request);
    }
  }
  std::sort(role->ports.begin(), role->ports.end(),
            [](const PortRequest& a, const PortRequest& b) { return a.label < b.label; });
}

void parse_completion(const Node& node, const std::string& path, FieldReader& reader,
                      Completion* out) {
  if (!reader.mapping(node, path, kCompletionKeys)) return;
  static const char kExpected[] = "-1 or a positive integer";
  for (const auto& [key, field] :
       {std::pair{"minSucceeded", &out->min_succeeded}, {"minFailed", &out->min_failed}}) {
    const Node* n = reader.optional(node, path, key);
    if (!n) continue;
    const std::string field_path = join_path(path, key);
    int value = 0;
    if (!reader.integer(*n, field_path, -1, INT32_MAX, &value, kExpected)) continue;
    if (value == 0) {
      reader.error(*n, field_path, std::string("expected ") + kExpected + ", got 0");
      continue;
    }
    *field = value;
  }
}

}  // namespace

bool is_role_name(const std::string& name) {
  return !name.empty() && name.size() <= 32 &&
         ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')) &&
         is_env_name(name);
}

Role parse_role(const Node& node, const std::string& path, const std::string& name,
                const std::map<std::string, std::string>& parameters, FieldReader& reader,
                bool command_required) {
  Role role;
  role.name = name;
  static const std::vector<std::string> kNested = {
      "resources.gpu", "resources.cpu", "resources.memory", "resources.shm",
      "completion.minSucceeded", "completion.minFailed"};
  if (!reader.mapping(node, path, kRoleKeys, kNested)) return role;

  if (const Node* n = reader.optional(node, path, "instances")) {
    reader.integer(*n, join_path(path, "instances"), 1, 100000, &role.instances);
  }
  if (const Node* n = reader.optional(node, path, "resources")) {
    parse_resources(*n, join_path(path, "resources"), reader, &role.resources);
  }
  if (const Node* n = reader.optional(node, path, "nprocPerNode")) {
    const std::string nproc_path = join_path(path, "nprocPerNode");
    if (n->is_scalar() && n->scalar == "gpu") {
      if (role.resources.gpu >= 1) {
        role.nproc_per_node = role.resources.gpu;
      } else {
        reader.error(*n, nproc_path,
                     "nprocPerNode gpu needs resources.gpu of at least 1, got " +
                         std::to_string(role.resources.gpu));
      }
    } else {
      reader.integer(*n, nproc_path, 1, 1024, &role.nproc_per_node,
                     "an integer between 1 and 1024 or gpu");
    }
  }
  role.env_convention =
      role.nproc_per_node == 1 ? EnvConvention::PerNode : EnvConvention::PerProcess;
  if (const Node* n = reader.optional(node, path, "envConvention")) {
    reader.enumeration(*n, join_path(path, "envConvention"), enum_values<EnvConvention>(),
                       &role.env_convention);
  }
  if (const Node* n = command_required ? reader.required(node, path, "command")
                                       : reader.optional(node, path, "command")) {
    parse_command(*n, join_path(path, "command"), parameters, reader, &role.command);
  }
  if (const Node* n = reader.optional(node, path, "workingDir")) {
    reader.string(*n, join_path(path, "workingDir"), &role.working_dir);
  }
  if (const Node* n = reader.optional(node, path, "env")) {
    parse_env(*n, join_path(path, "env"), parameters, reader, &role);
  }
  if (const Node* n = reader.optional(node, path, "ports")) {
    parse_ports(*n, join_path(path, "ports"), reader, &role);
  }
  if (const Node* n = reader.optional(node, path, "completion")) {
    parse_completion(*n, join_path(path, "completion"), reader, &role.completion);
  }
  return role;
}

}  // namespace pai
