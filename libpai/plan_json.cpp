#include "libpai/plan_json.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "libpai/json_fields.h"
#include "libpai/json_writer.h"

namespace pai {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- writing
//
// Members are written in canonical (sorted) key order; JsonWriter rejects any other.

void write(JsonWriter& w, const Host& h) {
  w.begin_object();
  w.member("address", h.address);
  w.member("name", h.name);
  w.member("slots", h.slots);
  w.end_object();
}

void write(JsonWriter& w, const Endpoint& e) {
  w.begin_object();
  w.member("address", e.address);
  w.member("host", e.host);
  w.member("port", e.port);
  w.end_object();
}

void write(JsonWriter& w, const std::vector<Host>& hosts) {
  w.begin_array();
  for (const Host& h : hosts) write(w, h);
  w.end_array();
}

template <typename T, typename Key>
std::vector<const T*> sorted_by(const std::vector<T>& items, Key key) {
  std::vector<const T*> out;
  out.reserve(items.size());
  for (const T& item : items) out.push_back(&item);
  std::sort(out.begin(), out.end(), [&](const T* a, const T* b) { return key(*a) < key(*b); });
  return out;
}

void write(JsonWriter& w, const Role& r) {
  using EnvVar = std::pair<std::string, std::string>;
  w.begin_object();
  w.member("command", r.command);
  w.key("completion");
  w.begin_object();
  w.member("minFailed", r.completion.min_failed);
  w.member("minSucceeded", r.completion.min_succeeded);
  w.end_object();
  w.key("env");
  w.begin_object();
  for (const EnvVar* var :
       sorted_by(r.env, [](const EnvVar& v) -> const std::string& { return v.first; })) {
    w.member(var->first, var->second);
  }
  w.end_object();
  w.member("envConvention", to_string(r.env_convention));
  w.member("instances", r.instances);
  w.member("launchArgv", r.launch_argv);
  w.member("name", r.name);
  w.member("nprocPerNode", r.nproc_per_node);
  w.key("ports");
  w.begin_object();
  for (const PortRequest* port :
       sorted_by(r.ports, [](const PortRequest& p) -> const std::string& { return p.label; })) {
    w.member(port->label, port->count);
  }
  w.end_object();
  w.key("resources");
  w.begin_object();
  w.member("cpu", r.resources.cpu);
  w.member("gpu", r.resources.gpu);
  w.member("memoryBytes", r.resources.memory_bytes);
  w.member("shmBytes", r.resources.shm_bytes);
  w.end_object();
  w.member("workingDir", r.working_dir);
  w.end_object();
}

void write(JsonWriter& w, const Placement& p) {
  w.begin_object();
  w.member("firstRank", p.first_rank);
  w.member("firstRoleRank", p.first_role_rank);
  w.key("host");
  write(w, p.host);
  w.member("index", p.index);
  w.member("nodeRank", p.node_rank);
  w.key("ports");
  w.begin_object();
  for (const auto& [label, list] : p.ports) w.member(label, list);
  w.end_object();
  w.member("role", p.role);
  w.end_object();
}

void write(JsonWriter& w, const FaultTolerance& f) {
  w.begin_object();
  w.member("checkpointWaitSeconds", f.checkpoint_wait_seconds);
  w.key("diagnosis");
  w.begin_object();
  w.member("action", to_string(f.diagnosis.action));
  w.member("enabled", f.diagnosis.enabled);
  w.member("hangSeconds", f.diagnosis.hang_seconds);
  w.member("ncclProfiler", f.diagnosis.nccl_profiler);
  w.member("rttFactor", f.diagnosis.rtt_factor);
  w.member("slowFactor", f.diagnosis.slow_factor);
  w.member("slowWindows", f.diagnosis.slow_windows);
  w.end_object();
  w.member("gracePeriodSeconds", f.grace_period_seconds);
  w.key("hang");
  w.begin_object();
  w.member("adaptiveFactor", f.hang.adaptive_factor);
  w.member("adaptiveFloorSeconds", f.hang.adaptive_floor_seconds);
  w.member("adaptiveWarmupSteps", f.hang.adaptive_warmup_steps);
  w.member("dumpCommand", f.hang.dump_command);
  w.member("enabled", f.hang.enabled);
  w.member("exitIntervalSeconds", f.hang.exit_interval_seconds);
  w.member("intervalSeconds", f.hang.interval_seconds);
  w.end_object();
  w.member("maxSameError", f.max_same_error);
  w.member("maxToleratedFailureRate", f.max_tolerated_failure_rate);
  w.member("mode", to_string(f.mode));
  w.member("policy", to_string(f.policy));
  w.key("restart");
  w.begin_object();
  w.member("backoffSeconds", f.backoff_seconds);
  w.member("enabled", f.restart_enabled);
  w.member("maxRestarts", f.max_restarts);
  w.end_object();
  w.member("retryableErrors", f.retryable_errors);
  w.end_object();
}

void write(JsonWriter& w, const SanityCheck& s) {
  w.begin_object();
  w.key("burn");
  w.begin_object();
  w.key("baselines");
  w.begin_array();
  for (const BurnBaseline& b : s.burn_baselines) {
    w.begin_object();
    w.member("model", b.model);
    w.member("precision", b.precision);
    w.member("tflops", b.tflops);
    w.end_object();
  }
  w.end_array();
  w.member("failPercent", s.burn_fail_percent);
  w.member("fp8", s.burn_fp8);
  w.member("minTflops", s.burn_min_tflops);
  w.member("seconds", s.burn_seconds);
  w.member("warnPercent", s.burn_warn_percent);
  w.end_object();
  w.member("checks", s.checks);
  w.key("custom");
  w.begin_array();
  for (const CustomCheck& c : s.custom) {
    w.begin_object();
    w.member("command", c.command);
    w.member("name", c.name);
    w.member("timeoutSeconds", c.timeout_seconds);
    w.end_object();
  }
  w.end_array();
  w.key("disk");
  w.begin_object();
  w.member("minFreeBytes", s.disk_min_free_bytes);
  w.end_object();
  w.member("enabled", s.enabled);
  w.key("fabric");
  w.begin_object();
  w.member("allNodes", s.fabric.all_nodes);
  w.member("beforeRestarts", s.fabric.before_restarts);
  w.member("durationSeconds", s.fabric.duration_seconds);
  w.member("enabled", s.fabric.enabled);
  w.member("minBusGbps", s.fabric.min_bus_gbs);
  w.member("minTcpGbps", s.fabric.min_tcp_gbps);
  w.member("nccl", s.fabric.nccl);
  w.member("streams", s.fabric.streams);
  w.member("timeoutSeconds", s.fabric.timeout_seconds);
  w.end_object();
  w.key("history");
  w.begin_object();
  w.member("dir", s.history.dir);
  w.member("maxFailures", s.history.max_failures);
  w.member("window", s.history.window);
  w.end_object();
  w.member("maxAttempts", s.max_attempts);
  w.key("nccl");
  w.begin_object();
  w.member("bytes", s.nccl_bytes);
  w.member("minBusBandwidthGBps", s.nccl_min_bus_bandwidth_gbps);
  w.end_object();
  w.member("timeoutSeconds", s.timeout_seconds);
  w.end_object();
}

// The canonical text of the plan without its hash (no trailing newline), and in
// `*hash_at` the offset where the "hash" member belongs in key order.
void write(JsonWriter& w, const Kubernetes& k) {
  w.begin_object();
  w.member("imagePullSecrets", k.image_pull_secrets);
  w.member("network", to_string(k.network));
  w.member("networks", k.networks);
  w.key("nodeSelector");
  w.begin_object();
  for (const auto& [key, value] : k.node_selector) w.member(key, value);
  w.end_object();
  w.key("rdma");
  w.begin_object();
  w.member("count", k.rdma_count);
  w.member("resource", k.rdma_resource);
  w.end_object();
  if (k.gang) {
    w.key("schedulingPolicy");
    w.begin_object();
    w.member("minAvailable", k.min_available);
    w.member("priorityClass", k.priority_class);
    w.member("queue", k.queue);
    w.end_object();
  }
  w.member("shmBytes", k.shm_bytes);
  w.key("tolerations");
  w.begin_array();
  for (const Toleration& t : k.tolerations) {
    w.begin_object();
    w.member("effect", t.effect);
    w.member("key", t.key);
    w.member("operator", t.op);
    w.member("seconds", t.seconds);
    w.member("value", t.value);
    w.end_object();
  }
  w.end_array();
  w.member("ttlSecondsAfterFinished", k.ttl_seconds);
  w.key("volumes");
  w.begin_array();
  for (const ClaimVolume& v : k.volumes) {
    w.begin_object();
    w.member("claimName", v.claim_name);
    w.member("mountPath", v.mount_path);
    w.member("name", v.name);
    w.member("readOnly", v.read_only);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

std::string canonical_plan(const Plan& plan, std::size_t* hash_at) {
  std::string out;
  out.reserve(1024 + plan.placements.size() * 400 + plan.hosts.size() * 80);
  JsonWriter w(out);
  const Fabric& f = plan.fabric;
  w.begin_object();
  w.member("compiler", plan.compiler);
  w.key("coordinator");
  write(w, plan.coordinator);
  w.member("coordinatorHost", plan.coordinator_host);
  w.member("coordinatorPort", plan.coordinator_port);
  w.key("fabric");
  w.begin_object();
  w.member("gidIndex", f.gid_index);
  w.member("hcas", f.hcas);
  w.member("interface", f.interface);
  w.member("trafficClass", f.traffic_class);
  w.member("type", to_string(f.type));
  w.end_object();
  w.key("faultTolerance");
  write(w, plan.fault_tolerance);
  w.member("framework", to_string(plan.framework));
  *hash_at = w.size();
  w.key("hosts");
  write(w, plan.hosts);
  w.member("image", plan.image);
  // Only a non-static inventory is written, so plans (and their hashes) of bare-metal jobs
  // are the same as before the member existed.
  if (plan.inventory != Inventory::Static) w.member("inventory", to_string(plan.inventory));
  // Only settings other than the defaults are written, so plans (and their hashes) without a
  // spec `kubernetes` section are the same as before the member existed.
  if (!(plan.kubernetes == Kubernetes{})) {
    w.key("kubernetes");
    write(w, plan.kubernetes);
  }
  w.key("master");
  write(w, plan.master);
  w.member("masterRole", plan.master_role);
  // Only an enabled endpoint and GPU-idle settings other than the defaults are written, so
  // plans (and their hashes) without them are the same as before the members existed.
  const bool custom_gpu_idle = !(plan.monitoring.gpu_idle == GpuIdle{});
  if (plan.monitoring.metrics_port != 0 || custom_gpu_idle) {
    w.key("monitoring");
    w.begin_object();
    if (custom_gpu_idle) {
      w.key("gpuIdle");
      w.begin_object();
      w.member("action", to_string(plan.monitoring.gpu_idle.action));
      w.member("thresholdPercent", plan.monitoring.gpu_idle.threshold_percent);
      w.member("windowSeconds", plan.monitoring.gpu_idle.window_seconds);
      w.end_object();
    }
    if (plan.monitoring.metrics_port != 0) {
      w.member("metricsAddress", plan.monitoring.metrics_address);
      w.member("metricsPort", plan.monitoring.metrics_port);
    }
    w.end_object();
  }
  w.key("mounts");
  w.begin_array();
  for (const Mount& m : plan.mounts) {
    w.begin_object();
    w.member("name", m.name);
    w.member("readOnly", m.read_only);
    w.member("source", m.source);
    w.member("target", m.target);
    w.end_object();
  }
  w.end_array();
  w.member("name", plan.name);
  w.member("nodes", plan.nodes);
  w.member("output", plan.output);
  w.key("placements");
  w.begin_array();
  for (const Placement& p : plan.placements) write(w, p);
  w.end_array();
  w.member("planVersion", plan.plan_version);
  w.key("portRange");
  w.begin_object();
  w.member("max", plan.port_range_max);
  w.member("min", plan.port_range_min);
  w.end_object();
  w.key("roles");
  w.begin_array();
  for (const Role& r : plan.roles) write(w, r);
  w.end_array();
  w.member("runtime", to_string(plan.runtime));
  w.key("sanityCheck");
  write(w, plan.sanity_check);
  w.key("spares");
  write(w, plan.spares);
  w.member("timeLimitSeconds", plan.time_limit_seconds);
  w.member("worldSize", plan.world_size);
  w.end_object();
  return out;
}

// The plan's text with the hash member that `seal` makes of its canonical text.
template <class Seal>
std::string sealed_json(const Plan& plan, Seal seal) {
  std::size_t hash_at = 0;
  std::string text = canonical_plan(plan, &hash_at);
  text.insert(hash_at, ",\n  \"hash\": \"" + seal(text) + "\"");
  text += '\n';
  return text;
}

// ---------------------------------------------------------------- reading

// The canonical text `text` was sealed over, if `text` is exactly what plan_to_json writes
// for a seal of `seal`: the canonical text with the hash member spliced in. Checking the text
// itself rather than a re-serialization of the parsed document makes any edit count,
// reformatting included, and keeps loading a 10,000-node plan cheap.
std::optional<std::string> sealed_text(const std::string& text, const std::string& seal) {
  const std::string member = ",\n  \"hash\": \"" + seal + "\"";
  std::size_t at = text.find(member);
  if (at == std::string::npos || text.empty() || text.back() != '\n') return std::nullopt;
  std::string canonical = text.substr(0, at);
  canonical.append(text, at + member.size(), text.size() - 1 - (at + member.size()));
  return canonical;
}

Host read_host(const JsonFields& f) {
  Host h{f.string("name"), f.string("address"), f.integer("slots", 0)};
  f.reject_unknown();
  return h;
}

GpuIdle read_gpu_idle(const JsonFields& f) {
  GpuIdle g;
  g.action = f.enumeration("action", enum_values<GpuIdleAction>());
  g.threshold_percent = f.number("thresholdPercent");
  if (!(g.threshold_percent > 0 && g.threshold_percent <= 100))
    f.fail(f.child("thresholdPercent"), "expected a percentage greater than 0 and at most 100");
  g.window_seconds = f.seconds("windowSeconds");
  if (g.window_seconds < 1) f.fail(f.child("windowSeconds"), "expected at least 1 second");
  f.reject_unknown();
  return g;
}

Monitoring read_monitoring(const JsonFields& f) {
  Monitoring m;
  if (f.raw().contains("gpuIdle")) m.gpu_idle = read_gpu_idle(f.object("gpuIdle"));
  // Both or neither: the endpoint is off when they are absent.
  if (f.raw().contains("metricsPort") || f.raw().contains("metricsAddress")) {
    m.metrics_address = f.string("metricsAddress");
    if (m.metrics_address.empty()) f.fail(f.child("metricsAddress"), "expected an address");
    m.metrics_port = f.integer("metricsPort");
    if (m.metrics_port < 1 || m.metrics_port > 65535)
      f.fail(f.child("metricsPort"), "expected a port from 1 to 65535");
  }
  f.reject_unknown();
  return m;
}

Kubernetes read_kubernetes(const JsonFields& f) {
  Kubernetes k;
  k.image_pull_secrets = f.strings("imagePullSecrets");
  k.network = f.enumeration("network", enum_values<PodNetwork>());
  k.networks = f.strings("networks");
  JsonFields selector = f.object("nodeSelector");
  for (const auto& [key, value] : selector.raw().items()) {
    if (!value.is_string()) selector.fail(selector.child(key), "expected a string");
    k.node_selector.emplace_back(key, value.get<std::string>());
  }
  JsonFields rdma = f.object("rdma");
  k.rdma_count = rdma.integer("count", 1);
  k.rdma_resource = rdma.string("resource");
  rdma.reject_unknown();
  if (f.raw().contains("schedulingPolicy")) {
    JsonFields gang = f.object("schedulingPolicy");
    k.gang = true;
    k.min_available = gang.integer("minAvailable", 0);
    k.priority_class = gang.string("priorityClass");
    k.queue = gang.string("queue");
    gang.reject_unknown();
  }
  k.shm_bytes = f.int64("shmBytes");
  if (k.shm_bytes < 0) f.fail(f.child("shmBytes"), "expected at least 0");
  const json& tolerations = f.array("tolerations");
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    JsonFields t(tolerations[i], f.item("tolerations", i), f.file());
    Toleration toleration;
    toleration.effect = t.string("effect");
    toleration.key = t.string("key");
    toleration.op = t.string("operator");
    toleration.seconds = t.int64("seconds");
    toleration.value = t.string("value");
    t.reject_unknown();
    k.tolerations.push_back(std::move(toleration));
  }
  k.ttl_seconds = f.int64("ttlSecondsAfterFinished");
  if (k.ttl_seconds < -1) f.fail(f.child("ttlSecondsAfterFinished"), "expected at least -1");
  const json& volumes = f.array("volumes");
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    JsonFields v(volumes[i], f.item("volumes", i), f.file());
    k.volumes.push_back(ClaimVolume{v.string("name"), v.string("claimName"), v.string("mountPath"),
                                    v.boolean("readOnly")});
    v.reject_unknown();
  }
  f.reject_unknown();
  return k;
}

Endpoint read_endpoint(const JsonFields& f) {
  Endpoint e{f.string("host"), f.string("address"), f.integer("port", 0)};
  f.reject_unknown();
  return e;
}

std::vector<Host> read_hosts(const JsonFields& parent, const char* key) {
  const json& list = parent.array(key);
  std::vector<Host> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.push_back(read_host(JsonFields(list[i], parent.item(key, i), parent.file())));
  }
  return out;
}

Role read_role(const JsonFields& f) {
  Role r;
  r.name = f.string("name");
  r.instances = f.integer("instances", 0);
  r.nproc_per_node = f.integer("nprocPerNode", 1);
  r.env_convention =
      f.enumeration("envConvention", enum_values<EnvConvention>());
  JsonFields res = f.object("resources");
  r.resources = Resources{res.integer("gpu", 0), res.number("cpu"), res.int64("memoryBytes"),
                          res.int64("shmBytes")};
  res.reject_unknown();
  r.command = f.strings("command");
  r.launch_argv = f.strings("launchArgv");
  r.working_dir = f.string("workingDir");
  JsonFields env = f.object("env");
  for (const auto& [name, value] : env.raw().items()) {
    if (!value.is_string()) env.fail(env.child(name), "expected a string");
    r.env.emplace_back(name, value.get<std::string>());
  }
  JsonFields ports = f.object("ports");
  for (const auto& item : ports.raw().items()) {
    const std::string& label = item.key();
    r.ports.push_back(PortRequest{
        label, ports.integer_at(item.value(), [&] { return ports.child(label); }, 1)});
  }
  JsonFields completion = f.object("completion");
  r.completion = Completion{completion.integer("minSucceeded"), completion.integer("minFailed")};
  completion.reject_unknown();
  f.reject_unknown();
  return r;
}

Placement read_placement(const JsonFields& f,
                         const std::unordered_map<std::string, int>& role_index) {
  Placement p;
  p.role = f.string("role");
  auto it = role_index.find(p.role);
  if (it == role_index.end()) f.fail(f.child("role"), "no role named \"" + p.role + "\"");
  p.role_index = it->second;
  p.index = f.integer("index", 0);
  p.node_rank = f.integer("nodeRank", 0);
  p.first_rank = f.integer("firstRank", 0);
  p.first_role_rank = f.integer("firstRoleRank", 0);
  p.host = read_host(f.object("host"));
  JsonFields ports = f.object("ports");
  for (const auto& item : ports.raw().items()) {
    const std::string& label = item.key();
    const auto& list = item.value();
    if (!list.is_array()) ports.fail(ports.child(label), "expected an array");
    std::vector<int>& out = p.ports[label];
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto path = [&] { return ports.child(label) + "[" + std::to_string(i) + "]"; };
      out.push_back(ports.integer_at(list[i], path, 0));
    }
  }
  f.reject_unknown();
  return p;
}

FaultTolerance read_fault_tolerance(const JsonFields& f) {
  FaultTolerance ft;
  ft.mode = f.enumeration("mode", enum_values<FaultToleranceMode>());
  JsonFields restart = f.object("restart");
  ft.restart_enabled = restart.boolean("enabled");
  ft.max_restarts = restart.integer("maxRestarts", 0);
  ft.backoff_seconds = restart.seconds("backoffSeconds");
  restart.reject_unknown();
  ft.policy = f.enumeration("policy", enum_values<RestartPolicy>());
  ft.retryable_errors = f.strings("retryableErrors");
  ft.max_same_error = f.integer("maxSameError");
  ft.max_tolerated_failure_rate = f.number("maxToleratedFailureRate");
  JsonFields hang = f.object("hang");
  ft.hang.enabled = hang.boolean("enabled");
  ft.hang.interval_seconds = hang.seconds("intervalSeconds");
  ft.hang.exit_interval_seconds = hang.seconds("exitIntervalSeconds");
  ft.hang.dump_command = hang.string("dumpCommand");
  ft.hang.adaptive_factor = hang.number("adaptiveFactor");
  ft.hang.adaptive_floor_seconds = hang.seconds("adaptiveFloorSeconds");
  ft.hang.adaptive_warmup_steps = hang.integer("adaptiveWarmupSteps", 1);
  hang.reject_unknown();
  JsonFields diagnosis = f.object("diagnosis");
  ft.diagnosis.action = diagnosis.enumeration("action", enum_values<DiagnosisAction>());
  ft.diagnosis.enabled = diagnosis.boolean("enabled");
  ft.diagnosis.hang_seconds = diagnosis.seconds("hangSeconds");
  ft.diagnosis.nccl_profiler = diagnosis.boolean("ncclProfiler");
  ft.diagnosis.rtt_factor = diagnosis.number("rttFactor");
  ft.diagnosis.slow_factor = diagnosis.number("slowFactor");
  ft.diagnosis.slow_windows = diagnosis.integer("slowWindows", 1);
  diagnosis.reject_unknown();
  ft.grace_period_seconds = f.seconds("gracePeriodSeconds");
  ft.checkpoint_wait_seconds = f.seconds("checkpointWaitSeconds");
  f.reject_unknown();
  return ft;
}

SanityCheck read_sanity_check(const JsonFields& f) {
  SanityCheck s;
  s.enabled = f.boolean("enabled");
  s.checks = f.strings("checks");
  JsonFields burn = f.object("burn");
  s.burn_seconds = burn.seconds("seconds");
  s.burn_min_tflops = burn.number("minTflops");
  s.burn_fp8 = burn.boolean("fp8");
  s.burn_warn_percent = burn.number("warnPercent");
  s.burn_fail_percent = burn.number("failPercent");
  const json& baselines = burn.array("baselines");
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    JsonFields b(baselines[i], burn.item("baselines", i), f.file());
    s.burn_baselines.push_back(
        BurnBaseline{b.string("model"), b.string("precision"), b.number("tflops")});
    b.reject_unknown();
  }
  burn.reject_unknown();
  JsonFields history = f.object("history");
  s.history.dir = history.string("dir");
  s.history.window = history.integer("window", 1);
  s.history.max_failures = history.integer("maxFailures", 1);
  history.reject_unknown();
  JsonFields nccl = f.object("nccl");
  s.nccl_min_bus_bandwidth_gbps = nccl.number("minBusBandwidthGBps");
  s.nccl_bytes = nccl.int64("bytes");
  nccl.reject_unknown();
  JsonFields disk = f.object("disk");
  s.disk_min_free_bytes = disk.int64("minFreeBytes");
  disk.reject_unknown();
  JsonFields fabric = f.object("fabric");
  s.fabric.all_nodes = fabric.boolean("allNodes");
  s.fabric.before_restarts = fabric.boolean("beforeRestarts");
  s.fabric.duration_seconds = fabric.seconds("durationSeconds");
  s.fabric.enabled = fabric.boolean("enabled");
  s.fabric.min_bus_gbs = fabric.number("minBusGbps");
  s.fabric.min_tcp_gbps = fabric.number("minTcpGbps");
  s.fabric.nccl = fabric.boolean("nccl");
  s.fabric.streams = fabric.integer("streams", 1);
  s.fabric.timeout_seconds = fabric.seconds("timeoutSeconds");
  fabric.reject_unknown();
  s.timeout_seconds = f.seconds("timeoutSeconds");
  s.max_attempts = f.integer("maxAttempts");
  const json& custom = f.array("custom");
  for (std::size_t i = 0; i < custom.size(); ++i) {
    JsonFields c(custom[i], f.item("custom", i), f.file());
    s.custom.push_back(
        CustomCheck{c.string("name"), c.string("command"), c.seconds("timeoutSeconds")});
    c.reject_unknown();
  }
  f.reject_unknown();
  return s;
}

Plan read_plan(const JsonFields& f) {
  Plan plan;
  plan.plan_version = f.integer("planVersion");
  plan.compiler = f.string("compiler");
  plan.name = f.string("name");
  plan.image = f.string("image");
  plan.runtime =
      f.enumeration("runtime", enum_values<Runtime>());
  plan.framework = f.enumeration("framework", enum_values<Framework>());
  JsonFields fabric = f.object("fabric");
  plan.fabric.type = fabric.enumeration("type", enum_values<FabricType>());
  plan.fabric.interface = fabric.string("interface");
  plan.fabric.hcas = fabric.strings("hcas");
  plan.fabric.gid_index = fabric.integer("gidIndex", -1);
  plan.fabric.traffic_class = fabric.integer("trafficClass", -1);
  fabric.reject_unknown();
  const json& mounts = f.array("mounts");
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    JsonFields m(mounts[i], f.item("mounts", i), f.file());
    plan.mounts.push_back(
        Mount{m.string("name"), m.string("source"), m.string("target"), m.boolean("readOnly")});
    m.reject_unknown();
  }
  plan.output = f.string("output");
  JsonFields range = f.object("portRange");
  plan.port_range_min = range.integer("min", 0);
  plan.port_range_max = range.integer("max", 0);
  range.reject_unknown();
  if (f.raw().contains("inventory")) {
    plan.inventory = f.enumeration("inventory", enum_values<Inventory>());
  }
  plan.hosts = read_hosts(f, "hosts");
  plan.spares = read_hosts(f, "spares");
  const json& roles = f.array("roles");
  std::unordered_map<std::string, int> role_index;
  for (std::size_t i = 0; i < roles.size(); ++i) {
    plan.roles.push_back(read_role(JsonFields(roles[i], f.item("roles", i), f.file())));
    role_index.emplace(plan.roles.back().name, static_cast<int>(i));
  }
  plan.master_role = f.string("masterRole");
  plan.coordinator_host = f.string("coordinatorHost");
  plan.coordinator_port = f.integer("coordinatorPort", 0);
  plan.fault_tolerance = read_fault_tolerance(f.object("faultTolerance"));
  plan.sanity_check = read_sanity_check(f.object("sanityCheck"));
  plan.time_limit_seconds = f.seconds("timeLimitSeconds");
  if (f.raw().contains("monitoring")) plan.monitoring = read_monitoring(f.object("monitoring"));
  if (f.raw().contains("kubernetes")) plan.kubernetes = read_kubernetes(f.object("kubernetes"));
  const json& placements = f.array("placements");
  plan.placements.reserve(placements.size());
  for (std::size_t i = 0; i < placements.size(); ++i) {
    plan.placements.push_back(
        read_placement(JsonFields(placements[i], f.item("placements", i), f.file()), role_index));
  }
  plan.coordinator = read_endpoint(f.object("coordinator"));
  plan.master = read_endpoint(f.object("master"));
  plan.world_size = f.integer("worldSize", 0);
  plan.nodes = f.integer("nodes", 0);
  f.reject_unknown();
  return plan;
}

}  // namespace

std::string plan_to_json(const Plan& plan, std::string_view token) {
  if (token.empty()) throw std::invalid_argument("plan_to_json: the job token is empty");
  return sealed_json(plan,
                     [&](const std::string& canonical) { return keyed_seal(canonical, token); });
}

std::string plan_to_json_unkeyed(const Plan& plan) {
  return sealed_json(plan, [](const std::string& canonical) { return digest_seal(canonical); });
}

std::string plan_seal(const Plan& plan, std::string_view token) {
  if (token.empty()) throw std::invalid_argument("plan_seal: the job token is empty");
  std::size_t hash_at = 0;
  return keyed_seal(canonical_plan(plan, &hash_at), token);
}

std::string role_to_json(const Plan& plan, const Role& role, std::string_view seal) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("placements");
  w.begin_array();
  for (const Placement& p : plan.placements) {
    if (p.role == role.name) write(w, p);
  }
  w.end_array();
  w.member("planHash", std::string(seal));
  w.key("role");
  write(w, role);
  w.end_object();
  out += '\n';
  return out;
}

Plan plan_from_json(const std::string& text, const std::string& file,
                    const std::optional<JobToken>& token) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    // parse_error for syntax, out_of_range for numbers beyond double (" 77773e3775").
    std::string message = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " tag; keep its line and column.
    if (auto close = message.find("] ");
        message.starts_with("[json.exception") && close != std::string::npos) {
      message.erase(0, close + 2);
    }
    throw PlanError(file + ": invalid JSON: " + message);
  }
  if (!document.is_object()) throw PlanError(file + ": expected a JSON object");
  JsonFields top(document, "", file);
  int version = top.integer("planVersion");
  if (version > kPlanVersion) {
    throw PlanError(file + ": planVersion " + std::to_string(version) +
                    " is newer than this pai-launch understands (" + std::to_string(kPlanVersion) +
                    "); upgrade pai-launch");
  }
  if (version < kMinPlanVersion) {
    throw PlanError(file + ": planVersion " + std::to_string(version) +
                    " is older than this pai-launch accepts (" + std::to_string(kMinPlanVersion) +
                    " or newer); recompile the job with pai-compile");
  }
  // Fields first, so a hand-edited plan learns which field is wrong, not just that the
  // seal no longer verifies.
  std::string seal = top.string("hash");
  Plan plan = read_plan(top);
  if (std::string problem = seal_problem(sealed_text(text, seal), seal, token); !problem.empty()) {
    throw PlanError(file + ": " + problem);
  }
  plan.seal = std::move(seal);
  return plan;
}

Plan load_plan_file(const std::string& path, const std::optional<JobToken>& token) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PlanError(path + ": cannot read the plan file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw PlanError(path + ": cannot read the plan file: " + std::strerror(errno));
  return plan_from_json(text.str(), path, token);
}

}  // namespace pai
