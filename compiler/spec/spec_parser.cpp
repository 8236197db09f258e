#include "compiler/spec/spec_parser.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "compiler/document/field_reader.h"
#include "compiler/spec/framework_parser.h"
#include "compiler/spec/host_list.h"
#include "compiler/spec/kubernetes_parser.h"
#include "compiler/spec/policy_parser.h"
#include "compiler/spec/port_range.h"
#include "compiler/spec/role_parser.h"
#include "compiler/spec/slurm_parser.h"

namespace pai {

namespace {

const std::vector<std::string> kTopKeys = {
    "apiVersion",  "kind",       "name",       "description", "image",     "runtime",
    "framework",   "parameters", "hosts",      "spares",      "portRange", "coordinator",
    "masterRole",  "fabric",     "mounts",     "output",      "roles",     "faultTolerance",
    "sanityCheck", "timeLimit",  "monitoring", "kubernetes",  "slurm",     "megatron",
    "ray",         "logs",       "masterStore"};
const std::vector<std::string> kLogsKeys = {"maxBytes"};
const std::vector<std::string> kPortRangeKeys = {"min", "max"};
const std::vector<std::string> kCoordinatorKeys = {"host", "port", "ha"};
const std::vector<std::string> kCoordinatorHaKeys = {"etcd", "lease"};
const std::vector<std::string> kMonitoringKeys = {"metricsPort", "metricsAddress", "metricsLinger",
                                                  "gpuIdle"};
const std::vector<std::string> kGpuIdleKeys = {"threshold", "window", "action"};
const std::vector<std::string> kFabricKeys = {"type", "interface", "hcas", "gidIndex",
                                              "trafficClass"};
const std::vector<std::string> kMountKeys = {"name", "source", "target", "readOnly"};
// A spec names a fabric only to choose one; "none" is the plan's word for leaving it out.
constexpr std::array kFabricTypes = {FabricType::Roce, FabricType::Ib, FabricType::Ethernet};

// "10.0.0.1", "::1": an address a socket binds as written, no name lookup.
bool is_numeric_address(const std::string& text) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 || inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

// `monitoring.gpuIdle.threshold`: "30%" or 30, a percentage in (0, 100].
void parse_gpu_idle_threshold(const Node& node, const std::string& path, FieldReader& reader,
                              double* out) {
  std::string text = node.is_scalar() ? node.scalar : "";
  const bool percent_sign = !text.empty() && text.back() == '%';
  if (percent_sign) text.pop_back();
  char* end = nullptr;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  const bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(value) &&
                      (percent_sign || !node.quoted);
  if (!number || !(value > 0 && value <= 100)) {
    reader.error(node, path,
                 "expected a percentage greater than 0 and at most 100 (\"30%\" or 30), got " +
                     describe(node));
    return;
  }
  *out = value;
}

class SpecParser {
 public:
  SpecParser(const Document& doc, Diagnostics& diags, JobSpec& spec, RoleOrder order)
      : spec_(spec), reader_(diags, spec.locations, &doc.text), order_(order) {}

  void parse(const Node& root);

 private:
  void parse_identity(const Node& root);
  void parse_parameters(const Node& node);
  void parse_port_range(const Node& node);
  void parse_coordinator(const Node& node);
  void parse_monitoring(const Node& node);
  void parse_logs(const Node& node);
  void parse_fabric(const Node& node);
  void parse_mounts(const Node& node);
  void parse_roles(const Node& node, const Node* master);

  JobSpec& spec_;
  FieldReader reader_;
  RoleOrder order_;
};

void SpecParser::parse(const Node& root) {
  reader_.record("", root);
  static const std::vector<std::string> kNested = {"faultTolerance.mode", "faultTolerance.policy",
                                                   "fabric.interface", "fabric.hcas"};
  if (!reader_.mapping(root, "", kTopKeys, kNested)) return;
  Plan& job = spec_.job;
  parse_identity(root);
  if (const Node* n = reader_.optional(root, "", "parameters")) parse_parameters(*n);
  if (const Node* n = reader_.optional(root, "", "hosts")) {
    parse_host_list(reader_, *n, "hosts", &job.hosts);
  }
  if (const Node* n = reader_.optional(root, "", "spares")) {
    parse_host_list(reader_, *n, "spares", &job.spares);
  }
  if (const Node* n = reader_.optional(root, "", "portRange")) {
    parse_port_range(*n);
  } else {
    job.port_range_min = default_port_range_min(job.name);  // jobs apart on one host
  }
  if (const Node* n = reader_.optional(root, "", "coordinator")) parse_coordinator(*n);
  if (const Node* n = reader_.optional(root, "", "fabric")) parse_fabric(*n);
  if (const Node* n = reader_.optional(root, "", "mounts")) parse_mounts(*n);
  if (const Node* n = reader_.optional(root, "", "output")) {
    reader_.absolute_path(*n, "output", &job.output);
  }
  if (const Node* n = reader_.optional(root, "", "timeLimit")) {
    reader_.duration(*n, "timeLimit", 1, &job.time_limit_seconds);
  }
  if (const Node* n = reader_.optional(root, "", "monitoring")) parse_monitoring(*n);
  if (const Node* n = reader_.optional(root, "", "logs")) parse_logs(*n);
  const Node* master = reader_.optional(root, "", "masterRole");
  if (const Node* n = reader_.required(root, "", "roles")) parse_roles(*n, master);
  if (const Node* n = reader_.optional(root, "", "faultTolerance")) {
    parse_fault_tolerance(*n, "faultTolerance", reader_, &job.fault_tolerance);
  }
  job.sanity_check.checks = builtin_check_names();
  if (const Node* n = reader_.optional(root, "", "sanityCheck")) {
    parse_sanity_check(*n, "sanityCheck", spec_.parameters, reader_, &job.sanity_check);
  }
  // After fabric, mounts and output, which the section is checked against.
  if (const Node* n = reader_.optional(root, "", "kubernetes")) {
    parse_kubernetes(*n, "kubernetes", job, reader_, &job.kubernetes);
  }
  if (const Node* n = reader_.optional(root, "", "slurm")) {
    parse_slurm(*n, "slurm", job, reader_, &job.slurm);
  }
  parse_framework_sections(root, reader_, spec_);
}

void SpecParser::parse_identity(const Node& root) {
  Plan& job = spec_.job;
  size_t index = 0;
  if (const Node* n = reader_.required(root, "", "apiVersion")) {
    reader_.enumeration(*n, "apiVersion", {"pai/v1"}, &index);
  }
  if (const Node* n = reader_.required(root, "", "kind")) {
    reader_.enumeration(*n, "kind", {"Job"}, &index);
  }
  if (const Node* n = reader_.required(root, "", "name")) reader_.dns_label(*n, "name", &job.name);
  if (const Node* n = reader_.optional(root, "", "description")) {
    std::string ignored;
    reader_.string(*n, "description", &ignored);
  }
  if (const Node* n = reader_.optional(root, "", "image")) reader_.string(*n, "image", &job.image);
  if (const Node* n = reader_.optional(root, "", "runtime")) {
    reader_.enumeration(*n, "runtime", enum_values<Runtime>(), &job.runtime);
  }
  if (const Node* n = reader_.optional(root, "", "framework")) {
    reader_.enumeration(*n, "framework", enum_values<Framework>(), &job.framework);
  }
  if (const Node* n = reader_.optional(root, "", "masterStore")) {
    reader_.enumeration(*n, "masterStore", enum_values<MasterStore>(), &job.master_store);
  }
}

void SpecParser::parse_parameters(const Node& node) {
  if (!reader_.free_mapping(node, "parameters")) return;
  for (const auto& [key, value] : node.entries) {
    const std::string path = join_path("parameters", key.scalar);
    reader_.record(path, value.is_scalar() ? value : key);
    if (!key.is_scalar() || !is_env_name(key.scalar)) {
      reader_.error(key, "parameters",
                    "parameter name " + (key.is_scalar() ? quote(key.scalar) : describe(key)) +
                        " must match [A-Za-z_][A-Za-z0-9_]*");
      continue;
    }
    std::string text;
    if (reader_.scalar_value(value, path, &text)) spec_.parameters[key.scalar] = text;
  }
}

void SpecParser::parse_port_range(const Node& node) {
  if (!reader_.mapping(node, "portRange", kPortRangeKeys)) return;
  if (const Node* n = reader_.optional(node, "portRange", "min")) {
    reader_.integer(*n, "portRange.min", 1024, 65535, &spec_.job.port_range_min);
  }
  if (const Node* n = reader_.optional(node, "portRange", "max")) {
    reader_.integer(*n, "portRange.max", 1024, 65535, &spec_.job.port_range_max);
  }
}

void SpecParser::parse_coordinator(const Node& node) {
  if (!reader_.mapping(node, "coordinator", kCoordinatorKeys)) return;
  if (const Node* n = reader_.optional(node, "coordinator", "host")) {
    reader_.dns_label(*n, "coordinator.host", &spec_.job.coordinator_host);
  }
  if (const Node* n = reader_.optional(node, "coordinator", "port")) {
    reader_.integer(*n, "coordinator.port", 1024, 65535, &spec_.job.coordinator_port);
  }
  const Node* ha = reader_.optional(node, "coordinator", "ha");
  if (ha == nullptr || !reader_.mapping(*ha, "coordinator.ha", kCoordinatorHaKeys)) return;
  CoordinatorHa& out = spec_.job.coordinator_ha;
  if (const Node* n = reader_.required(*ha, "coordinator.ha", "etcd")) {
    reader_.string_list(*n, "coordinator.ha.etcd", &out.etcd);
  }
  if (const Node* n = reader_.optional(*ha, "coordinator.ha", "lease")) {
    reader_.duration(*n, "coordinator.ha.lease", 1, &out.lease_seconds);
  }
}

void SpecParser::parse_monitoring(const Node& node) {
  if (!reader_.mapping(node, "monitoring", kMonitoringKeys)) return;
  Monitoring& m = spec_.job.monitoring;
  if (const Node* g = reader_.optional(node, "monitoring", "gpuIdle")) {
    if (reader_.mapping(*g, "monitoring.gpuIdle", kGpuIdleKeys)) {
      if (const Node* n = reader_.optional(*g, "monitoring.gpuIdle", "threshold")) {
        parse_gpu_idle_threshold(*n, "monitoring.gpuIdle.threshold", reader_,
                                 &m.gpu_idle.threshold_percent);
      }
      if (const Node* n = reader_.optional(*g, "monitoring.gpuIdle", "window")) {
        reader_.duration(*n, "monitoring.gpuIdle.window", 1, &m.gpu_idle.window_seconds);
      }
      if (const Node* n = reader_.optional(*g, "monitoring.gpuIdle", "action")) {
        reader_.enumeration(*n, "monitoring.gpuIdle.action", enum_values<GpuIdleAction>(),
                            &m.gpu_idle.action);
      }
    }
  }
  if (const Node* n = reader_.optional(node, "monitoring", "metricsPort")) {
    reader_.integer(*n, "monitoring.metricsPort", 1024, 65535, &m.metrics_port);
  }
  if (const Node* n = reader_.optional(node, "monitoring", "metricsAddress")) {
    std::string address;
    if (!reader_.string(*n, "monitoring.metricsAddress", &address)) return;
    if (!is_numeric_address(address)) {
      reader_.error(*n, "monitoring.metricsAddress",
                    "expected a numeric IPv4 or IPv6 address (0.0.0.0 for every IPv4 address), "
                    "got " +
                        describe(*n));
    } else if (m.metrics_port == 0) {
      reader_.error(*n, "monitoring.metricsAddress",
                    "has no effect without monitoring.metricsPort");
    } else {
      m.metrics_address = address;
    }
  }
  if (const Node* n = reader_.optional(node, "monitoring", "metricsLinger")) {
    std::int64_t seconds = 0;
    if (!reader_.duration(*n, "monitoring.metricsLinger", 0, &seconds)) return;
    if (seconds > Monitoring::kMaxMetricsLinger) {
      reader_.error(*n, "monitoring.metricsLinger",
                    "expected at most 10m (the launcher of the coordinator waits for it), got " +
                        describe(*n));
    } else if (m.metrics_port == 0) {
      reader_.error(*n, "monitoring.metricsLinger", "has no effect without monitoring.metricsPort");
    } else {
      m.metrics_linger_seconds = seconds;
    }
  }
}

void SpecParser::parse_logs(const Node& node) {
  if (!reader_.mapping(node, "logs", kLogsKeys)) return;
  if (const Node* n = reader_.optional(node, "logs", "maxBytes")) {
    reader_.quantity(*n, "logs.maxBytes", Logs::kMinMaxBytes, &spec_.job.logs.max_bytes);
  }
}

void SpecParser::parse_fabric(const Node& node) {
  if (!reader_.mapping(node, "fabric", kFabricKeys)) return;
  Fabric& fabric = spec_.job.fabric;
  const Node* type = reader_.required(node, "fabric", "type");
  if (!type || !reader_.enumeration(*type, "fabric.type", kFabricTypes, &fabric.type)) return;
  const std::string type_name = to_string(fabric.type);
  if (fabric.type == FabricType::Roce) {
    fabric.gid_index = 3;
    fabric.traffic_class = 106;
  }
  // A field another fabric type would use is a mistake, not something to ignore.
  const auto allowed = [&](const char* key, const char* types, bool ok) {
    const Node* n = reader_.optional(node, "fabric", key);
    if (n && !ok) {
      reader_.error(*n, join_path("fabric", key),
                    std::string(key) + " is not allowed for fabric type " + type_name +
                        " (only for " + types + ")");
      return static_cast<const Node*>(nullptr);
    }
    return n;
  };
  if (const Node* n = reader_.optional(node, "fabric", "interface")) {
    reader_.string(*n, "fabric.interface", &fabric.interface);
  }
  if (const Node* n = allowed("hcas", "roce and ib", fabric.type != FabricType::Ethernet)) {
    reader_.string_list(*n, "fabric.hcas", &fabric.hcas);
  }
  if (const Node* n = allowed("gidIndex", "roce", fabric.type == FabricType::Roce)) {
    reader_.integer(*n, "fabric.gidIndex", 0, 255, &fabric.gid_index);
  }
  if (const Node* n = allowed("trafficClass", "roce", fabric.type == FabricType::Roce)) {
    reader_.integer(*n, "fabric.trafficClass", 0, 255, &fabric.traffic_class);
  }
}

void SpecParser::parse_mounts(const Node& node) {
  if (!reader_.list(node, "mounts", "a list of mounts")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string path = index_path("mounts", i);
    const Node& item = node.items[i];
    reader_.record(path, item);
    if (!reader_.mapping(item, path, kMountKeys)) continue;
    Mount mount;
    if (const Node* n = reader_.required(item, path, "name")) {
      reader_.dns_label(*n, join_path(path, "name"), &mount.name);
    }
    if (const Node* n = reader_.required(item, path, "source")) {
      reader_.absolute_path(*n, join_path(path, "source"), &mount.source);
    }
    if (const Node* n = reader_.required(item, path, "target")) {
      reader_.absolute_path(*n, join_path(path, "target"), &mount.target);
    }
    if (const Node* n = reader_.optional(item, path, "readOnly")) {
      reader_.boolean(*n, join_path(path, "readOnly"), &mount.read_only);
    }
    spec_.job.mounts.push_back(std::move(mount));
  }
}

void SpecParser::parse_roles(const Node& node, const Node* master) {
  if (!reader_.free_mapping(node, "roles")) return;
  if (node.entries.empty()) {
    reader_.error(node, "roles", "expected at least one role");
    return;
  }
  std::vector<Role> roles;
  for (const auto& [key, value] : node.entries) {
    const std::string path = join_path("roles", key.scalar);
    reader_.record(path, key);
    if (!key.is_scalar() || !is_role_name(key.scalar)) {
      reader_.error(key, "roles",
                    "role name " + (key.is_scalar() ? quote(key.scalar) : describe(key)) +
                        " must match [A-Za-z][A-Za-z0-9_]* and have at most 32 characters "
                        "(it is used in env var names)");
      continue;
    }
    // A Ray job's workers run what pai renders (`ray start --address ...`); the head's
    // command is the entrypoint.
    const bool ray_worker = spec_.job.framework == Framework::Ray && key.scalar != "head";
    roles.push_back(parse_role(value, path, key.scalar, spec_.parameters, reader_, !ray_worker));
  }
  if (order_ == RoleOrder::ByName) {
    std::sort(roles.begin(), roles.end(),
              [](const Role& a, const Role& b) { return a.name < b.name; });
  }
  std::string master_name = roles.empty() ? std::string() : roles.front().name;
  // A Ray job's head is its master: instance 0, where RAY_ADDRESS points.
  if (spec_.job.framework == Framework::Ray) {
    for (const Role& role : roles) {
      if (role.name == "head") master_name = "head";
    }
  }
  if (master && reader_.string(*master, "masterRole", &master_name)) {
    // Rank order: the master role first, the others keep their order.
    std::stable_partition(roles.begin(), roles.end(),
                          [&](const Role& r) { return r.name == master_name; });
  }
  spec_.job.master_role = master_name;
  spec_.job.roles = std::move(roles);
}

}  // namespace

JobSpec parse_spec(const Document& doc, Diagnostics& diags, RoleOrder order) {
  JobSpec spec;
  SpecParser parser(doc, diags, spec, order);
  parser.parse(doc.root);
  if (spec.locations.empty() || spec.locations[""].file.empty()) {
    spec.locations[""] = Location{doc.file, 0, 0};
  }
  return spec;
}

}  // namespace pai
