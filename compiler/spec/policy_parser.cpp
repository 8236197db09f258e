#include "compiler/spec/policy_parser.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "compiler/document/parameters.h"

namespace pai {

namespace {

const std::vector<std::string> kFaultToleranceKeys = {"mode",
                                                      "restart",
                                                      "policy",
                                                      "retryableErrors",
                                                      "maxSameError",
                                                      "maxToleratedFailureRate",
                                                      "hang",
                                                      "gracePeriod",
                                                      "checkpointWait",
                                                      "diagnosis",
                                                      "warmStart",
                                                      "checkpointPlan",
                                                      "swap"};
const std::vector<std::string> kSwapKeys = {"enabled", "after", "checkpointTimeout"};
const std::vector<std::string> kWarmStartKeys = {"roles", "preload"};
const std::vector<std::string> kCheckpointPlanKeys = {"nodeMtbf", "checkpointCost", "restartCost"};
const std::vector<std::string> kRestartKeys = {"enabled", "maxRestarts", "backoff"};
const std::vector<std::string> kHangKeys = {"enabled", "interval", "exitInterval", "dumpCommand",
                                            "adaptive"};
const std::vector<std::string> kAdaptiveKeys = {"enabled", "factor", "floor", "warmupSteps"};
const std::vector<std::string> kDiagnosisKeys = {"enabled",      "action",      "hangAfter",
                                                 "slowFactor",   "slowWindows", "rttFactor",
                                                 "ncclProfiler", "nic"};
const std::vector<std::string> kNicKeys = {"enabled",           "errorRate",    "congestionFactor",
                                           "congestionMinRate", "slowFraction", "windows"};
const std::vector<std::string> kSanityKeys = {"history",     "enabled", "checks", "burn",
                                              "nccl",        "disk",    "fabric", "timeout",
                                              "maxAttempts", "custom",  "lint"};
const std::vector<std::string> kBurnKeys = {"seconds",   "minTflops", "fp8",
                                            "warnBelow", "failBelow", "baselines"};
const std::vector<std::string> kBaselineKeys = {"model", "bf16", "fp8"};
const std::vector<std::string> kHistoryKeys = {"dir", "window", "maxFailures"};
const std::vector<std::string> kNcclKeys = {"minBusBandwidthGBps", "size"};
const std::vector<std::string> kDiskKeys = {"minFree"};
const std::vector<std::string> kFabricKeys = {"minTcpGbps",     "duration", "timeout",    "streams",
                                              "beforeRestarts", "allNodes", "minBusGbps", "nccl"};
// The job-wide check: run by the coordinator across nodes, not by each node.
constexpr const char* kFabricCheck = "fabric";
const std::vector<std::string> kCustomKeys = {"name", "command", "timeout"};

bool non_negative(double v) { return v >= 0; }

void parse_restart(const Node& node, const std::string& path, FieldReader& reader,
                   FaultTolerance* out) {
  if (!reader.mapping(node, path, kRestartKeys)) return;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &out->restart_enabled);
  }
  if (const Node* n = reader.optional(node, path, "maxRestarts")) {
    reader.integer(*n, join_path(path, "maxRestarts"), 0, INT32_MAX, &out->max_restarts);
  }
  if (const Node* n = reader.optional(node, path, "backoff")) {
    reader.duration(*n, join_path(path, "backoff"), 0, &out->backoff_seconds);
  }
}

// `hang.adaptive`: present means on (factor 10, floor 5m, 20 warm-up steps) unless
// `enabled: false`.
void parse_adaptive_hang(const Node& node, const std::string& path, FieldReader& reader,
                         HangDetection* out) {
  if (!reader.mapping(node, path, kAdaptiveKeys)) return;
  bool enabled = true;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &enabled);
  }
  double factor = 10;
  if (const Node* n = reader.optional(node, path, "factor")) {
    reader.number(
        *n, join_path(path, "factor"), "a number greater than 1 and at most 1000",
        [](double v) { return v > 1 && v <= 1000; }, &factor);
  }
  if (const Node* n = reader.optional(node, path, "floor")) {
    reader.duration(*n, join_path(path, "floor"), 1, &out->adaptive_floor_seconds);
  }
  if (const Node* n = reader.optional(node, path, "warmupSteps")) {
    reader.integer(*n, join_path(path, "warmupSteps"), 1, 1000000, &out->adaptive_warmup_steps);
  }
  out->adaptive_factor = enabled ? factor : 0;
}

void parse_hang(const Node& node, const std::string& path, FieldReader& reader,
                HangDetection* out) {
  if (!reader.mapping(node, path, kHangKeys)) return;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &out->enabled);
  }
  if (const Node* n = reader.optional(node, path, "interval")) {
    reader.duration(*n, join_path(path, "interval"), 1, &out->interval_seconds);
  }
  if (const Node* n = reader.optional(node, path, "exitInterval")) {
    reader.duration(*n, join_path(path, "exitInterval"), 1, &out->exit_interval_seconds);
  }
  if (const Node* n = reader.optional(node, path, "dumpCommand")) {
    reader.string(*n, join_path(path, "dumpCommand"), &out->dump_command);
  }
  if (const Node* n = reader.optional(node, path, "adaptive")) {
    parse_adaptive_hang(*n, join_path(path, "adaptive"), reader, out);
  }
}

void parse_nic(const Node& node, const std::string& path, FieldReader& reader, NicDiagnosis* out) {
  if (!reader.mapping(node, path, kNicKeys)) return;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &out->enabled);
  }
  if (const Node* n = reader.optional(node, path, "errorRate")) {
    reader.number(
        *n, join_path(path, "errorRate"), "a number greater than 0", [](double v) { return v > 0; },
        &out->error_rate);
  }
  if (const Node* n = reader.optional(node, path, "congestionFactor")) {
    reader.number(
        *n, join_path(path, "congestionFactor"), "a number greater than 1",
        [](double v) { return v > 1; }, &out->congestion_factor);
  }
  if (const Node* n = reader.optional(node, path, "congestionMinRate")) {
    reader.number(*n, join_path(path, "congestionMinRate"), "a number of at least 0", non_negative,
                  &out->congestion_min_rate);
  }
  if (const Node* n = reader.optional(node, path, "slowFraction")) {
    reader.number(
        *n, join_path(path, "slowFraction"), "a number between 0 and 1",
        [](double v) { return v > 0 && v < 1; }, &out->slow_fraction);
  }
  if (const Node* n = reader.optional(node, path, "windows")) {
    reader.integer(*n, join_path(path, "windows"), 1, 3600, &out->windows);
  }
}

void parse_diagnosis(const Node& node, const std::string& path, FieldReader& reader,
                     DiagnosisPolicy* out) {
  if (!reader.mapping(node, path, kDiagnosisKeys)) return;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &out->enabled);
  }
  if (const Node* n = reader.optional(node, path, "action")) {
    reader.enumeration(*n, join_path(path, "action"), enum_values<DiagnosisAction>(), &out->action);
  }
  if (const Node* n = reader.optional(node, path, "hangAfter")) {
    reader.duration(*n, join_path(path, "hangAfter"), 1, &out->hang_seconds);
  }
  // Factors are bounded so that a typo (120 for 1.2) is an error, not a silent "never".
  const auto factor = [](double v) { return v > 1 && v <= 100; };
  if (const Node* n = reader.optional(node, path, "slowFactor")) {
    reader.number(*n, join_path(path, "slowFactor"), "a number greater than 1 and at most 100",
                  factor, &out->slow_factor);
  }
  if (const Node* n = reader.optional(node, path, "slowWindows")) {
    reader.integer(*n, join_path(path, "slowWindows"), 1, 3600, &out->slow_windows);
  }
  if (const Node* n = reader.optional(node, path, "rttFactor")) {
    reader.number(*n, join_path(path, "rttFactor"), "a number greater than 1 and at most 100",
                  factor, &out->rtt_factor);
  }
  if (const Node* n = reader.optional(node, path, "ncclProfiler")) {
    reader.boolean(*n, join_path(path, "ncclProfiler"), &out->nccl_profiler);
  }
  if (const Node* n = reader.optional(node, path, "nic")) {
    parse_nic(*n, join_path(path, "nic"), reader, &out->nic);
  }
}

void parse_checks(const Node& node, const std::string& path, FieldReader& reader,
                  std::vector<std::string>* out) {
  if (!reader.list(node, path, "a list of check names")) return;
  std::vector<std::string> checks;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    const Node& item = node.items[i];
    reader.record(item_path, item);
    size_t index = 0;
    if (!reader.enumeration(item, item_path, check_names(), &index)) continue;
    const std::string& name = check_names()[index];
    bool seen = false;
    for (const std::string& c : checks) seen = seen || c == name;
    if (seen) {
      reader.error(item, item_path, "check " + quote(name) + " is listed twice");
      continue;
    }
    checks.push_back(name);
  }
  *out = std::move(checks);
}

// A duration from `min` to `max` seconds.
void bounded_duration(const Node& node, const std::string& path, std::int64_t min, std::int64_t max,
                      FieldReader& reader, std::int64_t* out) {
  std::int64_t seconds = 0;
  if (!reader.duration(node, path, min, &seconds)) return;
  if (seconds > max) {
    reader.error(
        node, path,
        "expected at most " + std::to_string(max) + "s, got " + std::to_string(seconds) + "s");
    return;
  }
  *out = seconds;
}

void parse_fabric(const Node& node, const std::string& path, FieldReader& reader,
                  FabricCheck* out) {
  if (!reader.mapping(node, path, kFabricKeys)) return;
  if (const Node* n = reader.optional(node, path, "minTcpGbps")) {
    reader.number(*n, join_path(path, "minTcpGbps"), "a number of at least 0", non_negative,
                  &out->min_tcp_gbps);
  }
  if (const Node* n = reader.optional(node, path, "duration")) {
    bounded_duration(*n, join_path(path, "duration"), 1, 60, reader, &out->duration_seconds);
  }
  if (const Node* n = reader.optional(node, path, "timeout")) {
    bounded_duration(*n, join_path(path, "timeout"), 1, 600, reader, &out->timeout_seconds);
  }
  if (const Node* n = reader.optional(node, path, "streams")) {
    reader.integer(*n, join_path(path, "streams"), 1, 64, &out->streams);
  }
  if (const Node* n = reader.optional(node, path, "beforeRestarts")) {
    reader.boolean(*n, join_path(path, "beforeRestarts"), &out->before_restarts);
  }
  if (const Node* n = reader.optional(node, path, "allNodes")) {
    reader.boolean(*n, join_path(path, "allNodes"), &out->all_nodes);
  }
  if (const Node* n = reader.optional(node, path, "minBusGbps")) {
    reader.number(*n, join_path(path, "minBusGbps"), "a number of at least 0", non_negative,
                  &out->min_bus_gbs);
  }
  if (const Node* n = reader.optional(node, path, "nccl")) {
    reader.boolean(*n, join_path(path, "nccl"), &out->nccl);
  }
}

bool percent(double v) { return v > 0 && v <= 100; }

// "3.5", "7".
std::string format_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

void parse_baselines(const Node& node, const std::string& path, FieldReader& reader,
                     std::vector<BurnBaseline>* out) {
  if (!reader.list(node, path, "a list of {model, bf16, fp8}")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    const Node& item = node.items[i];
    reader.record(item_path, item);
    if (!reader.mapping(item, item_path, kBaselineKeys)) continue;
    std::string model;
    if (const Node* n = reader.required(item, item_path, "model")) {
      reader.string(*n, join_path(item_path, "model"), &model);
    }
    bool any = false;
    for (const char* precision : {"bf16", "fp8"}) {
      const Node* n = reader.optional(item, item_path, precision);
      if (n == nullptr) continue;
      any = true;
      double tflops = 0;
      if (reader.number(
              *n, join_path(item_path, precision), "a number greater than 0",
              [](double v) { return v > 0; }, &tflops)) {
        out->push_back(BurnBaseline{model, precision, tflops});
      }
    }
    if (!any) reader.error(item, item_path, "a baseline needs bf16 or fp8 TFLOPS");
  }
}

void parse_burn(const Node& node, const std::string& path, FieldReader& reader, SanityCheck* out) {
  if (!reader.mapping(node, path, kBurnKeys)) return;
  if (const Node* n = reader.optional(node, path, "seconds")) {
    reader.integer(*n, join_path(path, "seconds"), 1, 3600, &out->burn_seconds);
  }
  if (const Node* n = reader.optional(node, path, "minTflops")) {
    reader.number(*n, join_path(path, "minTflops"), "a number of at least 0", non_negative,
                  &out->burn_min_tflops);
  }
  if (const Node* n = reader.optional(node, path, "fp8")) {
    reader.boolean(*n, join_path(path, "fp8"), &out->burn_fp8);
  }
  if (const Node* n = reader.optional(node, path, "warnBelow")) {
    reader.number(*n, join_path(path, "warnBelow"), "a percentage greater than 0 and at most 100",
                  percent, &out->burn_warn_percent);
  }
  if (const Node* n = reader.optional(node, path, "failBelow")) {
    reader.number(*n, join_path(path, "failBelow"), "a percentage greater than 0 and at most 100",
                  percent, &out->burn_fail_percent);
  }
  if (out->burn_warn_percent > out->burn_fail_percent) {
    reader.error(node, join_path(path, "warnBelow"),
                 "warnBelow (" + format_number(out->burn_warn_percent) +
                     ") must not exceed failBelow (" + format_number(out->burn_fail_percent) + ")");
  }
  if (const Node* n = reader.optional(node, path, "baselines")) {
    parse_baselines(*n, join_path(path, "baselines"), reader, &out->burn_baselines);
  }
}

void parse_history(const Node& node, const std::string& path, FieldReader& reader,
                   CheckHistory* out) {
  if (!reader.mapping(node, path, kHistoryKeys)) return;
  if (const Node* n = reader.required(node, path, "dir")) {
    reader.absolute_path(*n, join_path(path, "dir"), &out->dir);
  }
  if (const Node* n = reader.optional(node, path, "window")) {
    reader.integer(*n, join_path(path, "window"), 1, 100, &out->window);
  }
  if (const Node* n = reader.optional(node, path, "maxFailures")) {
    reader.integer(*n, join_path(path, "maxFailures"), 1, out->window, &out->max_failures);
  }
}

void parse_custom(const Node& node, const std::string& path,
                  const std::map<std::string, std::string>& parameters, FieldReader& reader,
                  std::vector<CustomCheck>* out) {
  if (!reader.list(node, path, "a list of {name, command, timeout}")) return;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    const Node& item = node.items[i];
    reader.record(item_path, item);
    if (!reader.mapping(item, item_path, kCustomKeys)) continue;
    CustomCheck check;
    if (const Node* n = reader.required(item, item_path, "name")) {
      reader.dns_label(*n, join_path(item_path, "name"), &check.name);
    }
    if (const Node* n = reader.required(item, item_path, "command")) {
      const std::string command_path = join_path(item_path, "command");
      if (reader.string(*n, command_path, &check.command)) {
        check.command = reader.substitute(*n, check.command, parameters, command_path);
      }
    }
    if (const Node* n = reader.optional(item, item_path, "timeout")) {
      reader.duration(*n, join_path(item_path, "timeout"), 1, &check.timeout_seconds);
    }
    out->push_back(std::move(check));
  }
}

}  // namespace

const std::vector<std::string>& builtin_check_names() {
  static const std::vector<std::string> names = {"gpu",     "burn",   "nccl",
                                                 "network", "mounts", "disk"};
  return names;
}

const std::vector<std::string>& check_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = builtin_check_names();
    all.emplace_back(kFabricCheck);
    return all;
  }();
  return names;
}

namespace {

// The planner's inputs; what is not stated keeps its documented default, and `source` says
// which it was (docs/checkpoint-planning.md).
void parse_checkpoint_plan(const Node& node, const std::string& path, FieldReader& reader,
                           CheckpointPlan* out) {
  if (!reader.mapping(node, path, kCheckpointPlanKeys)) return;
  int stated = 0;
  if (const Node* n = reader.optional(node, path, "nodeMtbf")) {
    stated += reader.duration(*n, join_path(path, "nodeMtbf"), 1, &out->node_mtbf_seconds);
  }
  if (const Node* n = reader.optional(node, path, "checkpointCost")) {
    stated +=
        reader.duration(*n, join_path(path, "checkpointCost"), 0, &out->checkpoint_cost_seconds);
  }
  if (const Node* n = reader.optional(node, path, "restartCost")) {
    stated += reader.duration(*n, join_path(path, "restartCost"), 0, &out->restart_cost_seconds);
  }
  out->source = stated == 0   ? CheckpointPlanSource::Defaults
                : stated == 3 ? CheckpointPlanSource::Spec
                              : CheckpointPlanSource::SpecAndDefaults;
}

void parse_swap(const Node& node, const std::string& path, FieldReader& reader, SwapPolicy* out) {
  if (!reader.mapping(node, path, kSwapKeys)) return;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &out->enabled);
  }
  if (const Node* n = reader.optional(node, path, "after")) {
    reader.duration(*n, join_path(path, "after"), 1, &out->after_seconds);
  }
  if (const Node* n = reader.optional(node, path, "checkpointTimeout")) {
    reader.duration(*n, join_path(path, "checkpointTimeout"), 1, &out->checkpoint_timeout_seconds);
  }
}

}  // namespace

void parse_fault_tolerance(const Node& node, const std::string& path, FieldReader& reader,
                           FaultTolerance* out) {
  static const std::vector<std::string> kNested = {"restart.enabled",
                                                   "restart.maxRestarts",
                                                   "restart.backoff",
                                                   "hang.enabled",
                                                   "hang.interval",
                                                   "hang.exitInterval",
                                                   "hang.dumpCommand",
                                                   "hang.adaptive",
                                                   "diagnosis.action",
                                                   "diagnosis.hangAfter",
                                                   "diagnosis.slowFactor",
                                                   "diagnosis.slowWindows",
                                                   "diagnosis.rttFactor",
                                                   "diagnosis.ncclProfiler",
                                                   "diagnosis.nic",
                                                   "warmStart.roles",
                                                   "warmStart.preload",
                                                   "checkpointPlan.nodeMtbf",
                                                   "checkpointPlan.checkpointCost",
                                                   "checkpointPlan.restartCost",
                                                   "swap.enabled",
                                                   "swap.after",
                                                   "swap.checkpointTimeout"};
  if (!reader.mapping(node, path, kFaultToleranceKeys, kNested)) return;
  if (const Node* n = reader.optional(node, path, "mode")) {
    reader.enumeration(*n, join_path(path, "mode"), enum_values<FaultToleranceMode>(), &out->mode);
  }
  if (const Node* n = reader.optional(node, path, "restart")) {
    parse_restart(*n, join_path(path, "restart"), reader, out);
  }
  if (const Node* n = reader.optional(node, path, "policy")) {
    reader.enumeration(*n, join_path(path, "policy"), enum_values<RestartPolicy>(), &out->policy);
  }
  if (const Node* n = reader.optional(node, path, "retryableErrors")) {
    reader.string_list(*n, join_path(path, "retryableErrors"), &out->retryable_errors);
  }
  if (const Node* n = reader.optional(node, path, "maxSameError")) {
    reader.integer(*n, join_path(path, "maxSameError"), 1, INT32_MAX, &out->max_same_error);
  }
  if (const Node* n = reader.optional(node, path, "maxToleratedFailureRate")) {
    reader.number(
        *n, join_path(path, "maxToleratedFailureRate"),
        "-1 (off) or a number greater than 0 and at most 1",
        [](double v) { return v == -1 || (v > 0 && v <= 1); }, &out->max_tolerated_failure_rate);
  }
  if (const Node* n = reader.optional(node, path, "hang")) {
    parse_hang(*n, join_path(path, "hang"), reader, &out->hang);
  }
  if (const Node* n = reader.optional(node, path, "diagnosis")) {
    parse_diagnosis(*n, join_path(path, "diagnosis"), reader, &out->diagnosis);
  }
  if (const Node* n = reader.optional(node, path, "gracePeriod")) {
    reader.duration(*n, join_path(path, "gracePeriod"), 0, &out->grace_period_seconds);
  }
  if (const Node* n = reader.optional(node, path, "checkpointWait")) {
    reader.duration(*n, join_path(path, "checkpointWait"), 0, &out->checkpoint_wait_seconds);
  }
  if (const Node* n = reader.optional(node, path, "warmStart")) {
    const std::string warm = join_path(path, "warmStart");
    if (reader.mapping(*n, warm, kWarmStartKeys)) {
      if (const Node* r = reader.optional(*n, warm, "roles")) {
        reader.string_list(*r, join_path(warm, "roles"), &out->warm_start.roles);
      }
      if (const Node* p = reader.optional(*n, warm, "preload")) {
        reader.string_list(*p, join_path(warm, "preload"), &out->warm_start.preload);
      }
    }
  }
  if (const Node* n = reader.optional(node, path, "checkpointPlan")) {
    parse_checkpoint_plan(*n, join_path(path, "checkpointPlan"), reader, &out->checkpoint_plan);
  }
  if (const Node* n = reader.optional(node, path, "swap")) {
    parse_swap(*n, join_path(path, "swap"), reader, &out->swap);
  }
}

void parse_sanity_check(const Node& node, const std::string& path,
                        const std::map<std::string, std::string>& parameters, FieldReader& reader,
                        SanityCheck* out) {
  static const std::vector<std::string> kNested = {
      "burn.seconds",   "burn.minTflops",        "nccl.minBusBandwidthGBps", "nccl.size",
      "disk.minFree",   "fabric.minTcpGbps",     "fabric.duration",          "fabric.timeout",
      "fabric.streams", "fabric.beforeRestarts", "fabric.minBusGbps",        "burn.fp8",
      "burn.warnBelow", "burn.failBelow",        "burn.baselines",           "history.dir",
      "history.window", "history.maxFailures"};
  if (!reader.mapping(node, path, kSanityKeys, kNested)) return;
  if (const Node* n = reader.optional(node, path, "enabled")) {
    reader.boolean(*n, join_path(path, "enabled"), &out->enabled);
  }
  if (const Node* n = reader.optional(node, path, "checks")) {
    parse_checks(*n, join_path(path, "checks"), reader, &out->checks);
  }
  // The plan lists only the node checks; the fabric check is the coordinator's.
  const auto fabric = std::find(out->checks.begin(), out->checks.end(), kFabricCheck);
  if (fabric != out->checks.end()) {
    out->checks.erase(fabric);
    out->fabric.enabled = true;
  }
  if (const Node* n = reader.optional(node, path, "fabric")) {
    parse_fabric(*n, join_path(path, "fabric"), reader, &out->fabric);
  }
  if (const Node* n = reader.optional(node, path, "burn")) {
    parse_burn(*n, join_path(path, "burn"), reader, out);
  }
  if (const Node* n = reader.optional(node, path, "history")) {
    parse_history(*n, join_path(path, "history"), reader, &out->history);
  }
  if (const Node* nccl = reader.optional(node, path, "nccl")) {
    const std::string nccl_path = join_path(path, "nccl");
    if (reader.mapping(*nccl, nccl_path, kNcclKeys)) {
      if (const Node* n = reader.optional(*nccl, nccl_path, "minBusBandwidthGBps")) {
        reader.number(*n, join_path(nccl_path, "minBusBandwidthGBps"), "a number of at least 0",
                      non_negative, &out->nccl_min_bus_bandwidth_gbps);
      }
      if (const Node* n = reader.optional(*nccl, nccl_path, "size")) {
        reader.quantity(*n, join_path(nccl_path, "size"), 1024, &out->nccl_bytes);
      }
    }
  }
  if (const Node* disk = reader.optional(node, path, "disk")) {
    const std::string disk_path = join_path(path, "disk");
    if (reader.mapping(*disk, disk_path, kDiskKeys)) {
      if (const Node* n = reader.optional(*disk, disk_path, "minFree")) {
        reader.quantity(*n, join_path(disk_path, "minFree"), 0, &out->disk_min_free_bytes);
      }
    }
  }
  if (const Node* n = reader.optional(node, path, "timeout")) {
    reader.duration(*n, join_path(path, "timeout"), 1, &out->timeout_seconds);
  }
  if (const Node* n = reader.optional(node, path, "maxAttempts")) {
    reader.integer(*n, join_path(path, "maxAttempts"), 1, 100, &out->max_attempts);
  }
  if (const Node* n = reader.optional(node, path, "custom")) {
    parse_custom(*n, join_path(path, "custom"), parameters, reader, &out->custom);
  }
  if (const Node* n = reader.optional(node, path, "lint")) {
    reader.enumeration(*n, join_path(path, "lint"), enum_values<LintAction>(), &out->lint);
  }
}

}  // namespace pai
