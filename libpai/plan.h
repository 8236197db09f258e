// The Plan: the normalized job, the only contract between pai-compile and pai-launch.
//
// Every default is filled in; placements, ranks and ports are assigned. Its JSON form
// (plan_json.h) is described by schemas/plan.schema.json. Each struct lists its plan.json
// fields once, in a table beside its members (libpai/fields.h): the JSON name and bounds of
// each, in the order a launcher checks them; plan_json.cpp writes and reads by the tables, and
// a test holds them and the schema to each other.
//
// A new plan.json field is a member, one line of its struct's table, its property in
// schemas/plan.schema.json (tests/libpai/plan_test fails until the two agree) and the goldens
// rewritten. One written only when set (field::present_if) keeps older plans' text and seals.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libpai/enum_names.h"
#include "libpai/fields.h"

namespace pai {

/// Version of the plan format this build reads and writes. A launcher refuses a plan
/// whose planVersion is greater than this.
inline constexpr int kPlanVersion = 2;
/// The oldest planVersion a launcher accepts: older plans are refused ("recompile"). 2 is
/// the first whose seal is keyed with the job token (plan_seal.h).
inline constexpr int kMinPlanVersion = 2;

/// The launcher's run directory on every node. Control sockets (PAI_CONTROL_SOCKET) live
/// under it, so container runtimes bind it at the same path.
inline constexpr const char* kLauncherRunDir = "/tmp/pai";

/// How each process is wrapped.
enum class Runtime { Host, Docker, Apptainer };
/// The training framework; selects defaults and presets (docs/frameworks.md): the env
/// convention, MPI's rules, each framework's own variables (JAX_*, DMLC_*, RAY_ADDRESS,
/// Megatron's CUDA settings) and its launch shape (Ray's head and workers, XGBoost's tracker).
enum class Framework { PyTorch, Mpi, TensorFlow, DeepSpeed, Custom, Jax, Ray, XGBoost, Megatron };
/// Network fabric preset for NCCL/Gloo.
enum class FabricType { None, Roce, Ib, Ethernet };
/// Which flavour of the env contract (design §5) a role's processes get.
///   PerProcess: torch style, RANK/WORLD_SIZE count processes.
///   PerNode: DLC/ACP style, RANK/WORLD_SIZE count nodes; the user's command runs its own
///            torchrun/mpirun/deepspeed.
///   Torchrun: exactly the variables torchrun's agent gives its workers (RANK, GROUP_RANK,
///             GROUP_WORLD_SIZE, TORCHELASTIC_*, ...; no NODE_RANK, NNODES, NPROC_PER_NODE),
///             plus pai's own PAI_*: what `pai-launch torchrun` runs (docs/torchrun.md).
enum class EnvConvention { PerProcess, PerNode, Torchrun };
/// sync: a failure restarts the whole job; async: only the failed instance.
enum class FaultToleranceMode { Sync, Async };
/// Which failures are retried.
enum class RestartPolicy { ExitCodeAndErrorMsg, ExitCode, OnFailure, Never };
/// What a diagnosis verdict (launcher/policy/diagnosis.h) does: warn records it and shows it;
/// isolate also stops the job, excludes the node it names, brings a spare and restarts.
enum class DiagnosisAction { Warn, Isolate };
/// What the fabric lint at the rendezvous does (launcher/policy/fabric_lint.h): warn names the
/// outliers and contradictions; exclude also takes out the nodes the majority contradicts (a
/// spare takes their instance).
enum class LintAction { Warn, Exclude };
/// What a GPU-idle verdict (launcher/policy/gpu_idle.h) does: warn records it and shows it;
/// restart also restarts the job (the instance in async mode) as a retryable failure.
enum class GpuIdleAction { Warn, Restart };
/// Style of a rendered MPI hostfile.
enum class HostfileStyle { OpenMpi, Mpich };
/// Where the plan's hosts come from.
///   Static: the hosts are the real machines, known when the plan was compiled.
///   Slurm: the hosts and spares are placeholders ("slurm-0", "slurm-spare-0", ...); the
///          launcher replaces them with the nodes of the Slurm allocation at launch and
///          places the job again (launcher/node/slurm_inventory.h).
enum class Inventory { Static, Slurm };
/// Who serves the ranks' key-value store on MASTER_ADDR:MASTER_PORT (torch's TCPStore, what
/// env:// process groups meet through).
///   Rank0: rank 0 does, as under a plain torch.distributed (TORCHELASTIC_USE_AGENT_STORE=False).
///   Launcher: the launcher next to rank 0 does, from before the ranks start
///             (TORCHELASTIC_USE_AGENT_STORE=True, launcher/store/store_server.h), so no rank
///             waits for rank 0's store to listen.
enum class MasterStore { Rank0, Launcher };
/// Where the checkpoint planner's inputs came from (faultTolerance.checkpointPlan): every
/// one stated in the spec, none (the documented defaults), or some of each.
enum class CheckpointPlanSource { Defaults, Spec, SpecAndDefaults };

/// Spelling of the enums in the spec and in plan.json (to_string, enum_from_string and
/// enum_values of libpai/enum_names.h read these tables).
template <>
struct EnumNames<Runtime> {
  static constexpr std::array<EnumName<Runtime>, 3> table{
      {{Runtime::Host, "host"}, {Runtime::Docker, "docker"}, {Runtime::Apptainer, "apptainer"}}};
};
template <>
struct EnumNames<Framework> {
  static constexpr std::array<EnumName<Framework>, 9> table{{{Framework::PyTorch, "pytorch"},
                                                             {Framework::Mpi, "mpi"},
                                                             {Framework::TensorFlow, "tensorflow"},
                                                             {Framework::DeepSpeed, "deepspeed"},
                                                             {Framework::Custom, "custom"},
                                                             {Framework::Jax, "jax"},
                                                             {Framework::Ray, "ray"},
                                                             {Framework::XGBoost, "xgboost"},
                                                             {Framework::Megatron, "megatron"}}};
};
template <>
struct EnumNames<FabricType> {
  static constexpr std::array<EnumName<FabricType>, 4> table{{{FabricType::None, "none"},
                                                              {FabricType::Roce, "roce"},
                                                              {FabricType::Ib, "ib"},
                                                              {FabricType::Ethernet, "ethernet"}}};
};
template <>
struct EnumNames<EnvConvention> {
  static constexpr std::array<EnumName<EnvConvention>, 3> table{
      {{EnvConvention::PerProcess, "perProcess"},
       {EnvConvention::PerNode, "perNode"},
       {EnvConvention::Torchrun, "torchrun"}}};
};
template <>
struct EnumNames<FaultToleranceMode> {
  static constexpr std::array<EnumName<FaultToleranceMode>, 2> table{
      {{FaultToleranceMode::Sync, "sync"}, {FaultToleranceMode::Async, "async"}}};
};
template <>
struct EnumNames<RestartPolicy> {
  static constexpr std::array<EnumName<RestartPolicy>, 4> table{
      {{RestartPolicy::ExitCodeAndErrorMsg, "exitCodeAndErrorMsg"},
       {RestartPolicy::ExitCode, "exitCode"},
       {RestartPolicy::OnFailure, "onFailure"},
       {RestartPolicy::Never, "never"}}};
};
template <>
struct EnumNames<DiagnosisAction> {
  static constexpr std::array<EnumName<DiagnosisAction>, 2> table{
      {{DiagnosisAction::Warn, "warn"}, {DiagnosisAction::Isolate, "isolate"}}};
};
template <>
struct EnumNames<LintAction> {
  static constexpr std::array<EnumName<LintAction>, 2> table{
      {{LintAction::Warn, "warn"}, {LintAction::Exclude, "exclude"}}};
};
template <>
struct EnumNames<GpuIdleAction> {
  static constexpr std::array<EnumName<GpuIdleAction>, 2> table{
      {{GpuIdleAction::Warn, "warn"}, {GpuIdleAction::Restart, "restart"}}};
};
template <>
struct EnumNames<Inventory> {
  static constexpr std::array<EnumName<Inventory>, 2> table{
      {{Inventory::Static, "static"}, {Inventory::Slurm, "slurm"}}};
};
template <>
struct EnumNames<MasterStore> {
  static constexpr std::array<EnumName<MasterStore>, 2> table{
      {{MasterStore::Rank0, "rank0"}, {MasterStore::Launcher, "launcher"}}};
};
template <>
struct EnumNames<CheckpointPlanSource> {
  static constexpr std::array<EnumName<CheckpointPlanSource>, 3> table{
      {{CheckpointPlanSource::Defaults, "defaults"},
       {CheckpointPlanSource::Spec, "spec"},
       {CheckpointPlanSource::SpecAndDefaults, "spec+defaults"}}};
};

// ---- Options of the field tables. Plain values: plan_json.cpp checks them and words the
// errors ("plan.json: roles[0].instances: expected an integer from 0 to 2147483647"). ----

/// An integer at least `min`: an int up to INT_MAX ("expected an integer from MIN to
/// 2147483647"), an int64 with no upper bound ("expected at least MIN"). An int without it
/// may be any int ("integer out of range").
struct AtLeast {
  int min;
};
/// A duration in whole seconds, 0 to kMaxDurationSeconds (libpai/duration.h).
struct Seconds {};
/// The name of a role of the plan (Plan::roles, listed before the member); reading sets
/// `index` to that role's index.
template <class Index>
struct NamesRole {
  Index& index;
};
template <class Index>
NamesRole(Index&) -> NamesRole<Index>;

/// A machine of the inventory. `slots` is the number of processes/GPUs it offers (0 =
/// not stated, not checked).
struct Host {
  std::string name;
  std::string address;
  int slots = 0;
  friend void fields(auto& v, Like<Host> auto& m) {
    v("name", m.name);
    v("address", m.address);
    v("slots", m.slots, AtLeast{0});
  }
};

/// A network endpoint inside the job (coordinator, PyTorch master).
struct Endpoint {
  std::string host;     ///< host name from the inventory
  std::string address;  ///< address processes connect to
  int port = 0;
  friend void fields(auto& v, Like<Endpoint> auto& m) {
    v("host", m.host);
    v("address", m.address);
    v("port", m.port, AtLeast{0});
  }
};

struct Fabric {
  FabricType type = FabricType::None;
  std::string interface;          ///< NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME; empty = unset
  std::vector<std::string> hcas;  ///< NCCL_IB_HCA; RoCE and IB only
  int gid_index = -1;             ///< NCCL_IB_GID_INDEX; RoCE only (-1 = unset)
  int traffic_class = -1;         ///< NCCL_IB_TC; RoCE only (-1 = unset)
  friend void fields(auto& v, Like<Fabric> auto& m) {
    v("type", m.type);
    v("interface", m.interface);
    v("hcas", m.hcas);
    v("gidIndex", m.gid_index, AtLeast{-1});
    v("trafficClass", m.traffic_class, AtLeast{-1});
  }
};

struct Mount {
  std::string name;
  std::string source;
  std::string target;
  bool read_only = false;
  friend void fields(auto& v, Like<Mount> auto& m) {
    v("name", m.name);
    v("source", m.source);
    v("target", m.target);
    v("readOnly", m.read_only);
  }
};

struct Resources {
  int gpu = 0;
  double cpu = 0;                 ///< cores; 0 = not stated
  std::int64_t memory_bytes = 0;  ///< 0 = not stated
  std::int64_t shm_bytes = 0;     ///< 0 = not stated
  friend void fields(auto& v, Like<Resources> auto& m) {
    v("gpu", m.gpu, AtLeast{0});
    v("cpu", m.cpu);
    v("memoryBytes", m.memory_bytes);
    v("shmBytes", m.shm_bytes);
  }
};

/// `count` consecutive ports reserved under `label` on every instance of a role.
struct PortRequest {
  std::string label;
  int count = 1;
};

/// A role is finished successfully once `min_succeeded` instances succeeded (-1 = all),
/// and failed once `min_failed` instances failed (-1 = never by itself).
struct Completion {
  int min_succeeded = -1;
  int min_failed = 1;
  friend void fields(auto& v, Like<Completion> auto& m) {
    v("minSucceeded", m.min_succeeded);
    v("minFailed", m.min_failed);
  }
};

struct Role {
  std::string name;
  int instances = 1;
  int nproc_per_node = 1;
  EnvConvention env_convention = EnvConvention::PerNode;
  Resources resources;
  /// The user's command as argv (a string command is {"/bin/sh", "-c", cmd}), with
  /// ${parameters.x} already substituted.
  std::vector<std::string> command;
  /// What the launcher executes: the runtime's wrapper (docker run ... / apptainer exec ...)
  /// followed by `command`. For runtime host this equals `command`.
  std::vector<std::string> launch_argv;
  std::string working_dir;  ///< empty = the launcher's working directory
  /// The role's own env, parameters substituted, sorted by name. Overrides fabric presets.
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<PortRequest> ports;
  Completion completion;
  friend void fields(auto& v, Like<Role> auto& m) {
    v("name", m.name);
    v("instances", m.instances, AtLeast{0});
    v("nprocPerNode", m.nproc_per_node, AtLeast{1});
    v("envConvention", m.env_convention);
    v("resources", m.resources);
    v("command", m.command);
    v("launchArgv", m.launch_argv);
    v("workingDir", m.working_dir);
    v("env", m.env);      // an object of strings, in key order
    v("ports", m.ports);  // an object: label -> count (at least 1), in key order
    v("completion", m.completion);
  }
};

/// One role instance placed on one host.
struct Placement {
  std::string role;         ///< role name
  int role_index = 0;       ///< index of the role in Plan::roles
  int index = 0;            ///< instance index within the role
  int node_rank = 0;        ///< index of this instance among all instances of the job
  int first_rank = 0;       ///< global rank of this instance's local rank 0
  int first_role_rank = 0;  ///< rank within the role of this instance's local rank 0
  Host host;
  /// label -> the ports reserved for that label on this instance, in order.
  std::map<std::string, std::vector<int>> ports;
  friend void fields(auto& v, Like<Placement> auto& m) {
    v("role", m.role, NamesRole{m.role_index});
    v("index", m.index, AtLeast{0});
    v("nodeRank", m.node_rank, AtLeast{0});
    v("firstRank", m.first_rank, AtLeast{0});
    v("firstRoleRank", m.first_role_rank, AtLeast{0});
    v("host", m.host);
    v("ports", m.ports);  // an object: label -> [port, ...] (each at least 0)
  }
};

struct HangDetection {
  bool enabled = true;
  std::int64_t interval_seconds = 1800;
  std::int64_t exit_interval_seconds = 600;
  /// Command run to dump stacks of a hung process group ({pid} and {pgid} substituted);
  /// empty = send SIGQUIT then SIGUSR1 to the group.
  std::string dump_command;
  /// Adaptive interval (`hang.adaptive`): once a rank has reported `adaptive_warmup_steps`
  /// steps through its telemetry, silence longer than max(adaptive_floor_seconds,
  /// adaptive_factor x the p99 step time) is a hang, never longer than interval_seconds.
  /// adaptive_factor 0 = off.
  double adaptive_factor = 0;
  std::int64_t adaptive_floor_seconds = 300;
  int adaptive_warmup_steps = 20;
  friend void fields(auto& v, Like<HangDetection> auto& m) {
    v("enabled", m.enabled);
    v("intervalSeconds", m.interval_seconds, Seconds{});
    v("exitIntervalSeconds", m.exit_interval_seconds, Seconds{});
    v("dumpCommand", m.dump_command);
    v("adaptiveFactor", m.adaptive_factor);
    v("adaptiveFloorSeconds", m.adaptive_floor_seconds, Seconds{});
    v("adaptiveWarmupSteps", m.adaptive_warmup_steps, AtLeast{1});
  }
};

/// Naming the slow or hung rank from the ranks' telemetry (design §12).
/// The thresholds of the NIC verdicts (spec `faultTolerance.diagnosis.nic`,
/// launcher/policy/nic_verdict.h); the defaults name nothing on a healthy fabric.
struct NicDiagnosis {
  bool enabled = true;
  double error_rate = 10;          ///< error counts per second a port may rise by
  double congestion_factor = 10;   ///< congestion counters this many times the others' median
  double congestion_min_rate = 1000;  ///< ... and above this rate (per second) are a storm
  double slow_fraction = 0.2;  ///< a port under this share of the median bytes is slow
  int windows = 2;             ///< heartbeats in a row a finding must last
  bool operator==(const NicDiagnosis&) const = default;
  friend void fields(auto& v, Like<NicDiagnosis> auto& m) {
    v("enabled", m.enabled);
    v("errorRate", m.error_rate);
    v("congestionFactor", m.congestion_factor);
    v("congestionMinRate", m.congestion_min_rate);
    v("slowFraction", m.slow_fraction);
    v("windows", m.windows, AtLeast{1});
  }
};

struct DiagnosisPolicy {
  bool enabled = true;
  DiagnosisAction action = DiagnosisAction::Warn;
  /// A collective open this long on some ranks while another has not entered it (or on every
  /// rank) is a hang verdict.
  std::int64_t hang_seconds = 60;
  /// A rank whose compute per window is at least this many times the others' median is slow.
  double slow_factor = 1.2;
  /// ... for this many consecutive one-second windows.
  int slow_windows = 5;
  /// A node whose ranks' TCP round-trip time is at least this many times the other nodes' is
  /// the slow link.
  double rtt_factor = 3;
  /// Ranks get NCCL_PROFILER_PLUGIN pointing at pai's NCCL profiler plugin, which records
  /// NCCL's collectives in the telemetry ring (for NCCL jobs without the SDK).
  bool nccl_profiler = false;
  NicDiagnosis nic;
  friend void fields(auto& v, Like<DiagnosisPolicy> auto& m) {
    v("action", m.action);
    v("enabled", m.enabled);
    v("hangSeconds", m.hang_seconds, Seconds{});
    v("ncclProfiler", m.nccl_profiler);
    v("nic", m.nic, field::optional);
    v("rttFactor", m.rtt_factor);
    v("slowFactor", m.slow_factor);
    v("slowWindows", m.slow_windows, AtLeast{1});
  }
};

/// Swapping a degrading node for a spare before it fails (spec `faultTolerance.swap`,
/// docs/swap.md): a slow verdict of the diagnosis or a critical NIC verdict that still holds
/// `after_seconds` later, with
/// a ready spare, makes the coordinator ask the ranks for a checkpoint, stop the job once one
/// is saved, and start it again with the spare in the node's place, counted as no failure.
struct SwapPolicy {
  bool enabled = false;
  /// How long a slow verdict must hold (from the verdict) before the swap begins.
  std::int64_t after_seconds = 60;
  /// How long the swap waits for the ranks' checkpoint before it gives up.
  std::int64_t checkpoint_timeout_seconds = 600;
  bool operator==(const SwapPolicy&) const = default;
  friend void fields(auto& v, Like<SwapPolicy> auto& m) {
    v("enabled", m.enabled);
    v("afterSeconds", m.after_seconds, Seconds{});
    v("checkpointTimeoutSeconds", m.checkpoint_timeout_seconds, Seconds{});
  }
};

/// Warm starts (spec `faultTolerance.warmStart`; launcher/os/warm_interpreter.h): for each
/// local rank slot of the named roles the launcher keeps a Python interpreter that has
/// imported `preload`; a (re)start forks it instead of starting Python afresh.
struct WarmStart {
  std::vector<std::string> roles;    ///< role names; empty = no warm starts
  std::vector<std::string> preload;  ///< modules imported before the fork, in order
  friend void fields(auto& v, Like<WarmStart> auto& m) {
    v("roles", m.roles);
    v("preload", m.preload);
  }
};

/// The checkpoint interval that maximises the job's expected ETTR (effective training time
/// ratio), from the spec's `faultTolerance.checkpointPlan` or the defaults below
/// (docs/checkpoint-planning.md). The inputs are the spec's; the rest is set by
/// plan_checkpoints (compiler/plan/checkpoint_planner.h). Ranks get interval_seconds as
/// PAI_CHECKPOINT_INTERVAL_SECONDS.
/// What the nodes' check histories said of a node's MTBF (compiler/plan/history_mtbf.h).
struct MtbfHistory {
  std::int64_t nodes = 0;         ///< the job's hosts whose history covers some time
  std::int64_t failures = 0;      ///< their failed check runs after each one's first
  std::int64_t node_seconds = 0;  ///< the time their histories cover, summed
  bool used = false;              ///< whether node_mtbf_seconds comes from them
  bool operator==(const MtbfHistory&) const = default;
};

struct CheckpointPlan {
  /// Default per-node MTBF: Llama 3's 466 job interruptions in 54 days on 2,048 nodes of 8
  /// GPUs, 54 d x 2,048 / 466 = 237.3 node-days between failures.
  static constexpr std::int64_t kDefaultNodeMtbfSeconds = 237 * 86400;
  /// Default stall of one save: a synchronous save of some GiB per rank.
  static constexpr std::int64_t kDefaultCheckpointCostSeconds = 60;
  /// Default restart: detection, restart, checkpoint reload and warm-up to the first step.
  static constexpr std::int64_t kDefaultRestartCostSeconds = 600;

  /// Mean time between failures of one node.
  std::int64_t node_mtbf_seconds = kDefaultNodeMtbfSeconds;
  /// How long one save stalls training.
  std::int64_t checkpoint_cost_seconds = kDefaultCheckpointCostSeconds;
  /// A failure to the first step after it.
  std::int64_t restart_cost_seconds = kDefaultRestartCostSeconds;
  CheckpointPlanSource source = CheckpointPlanSource::Defaults;
  /// The nodes' check histories, when the spec states no nodeMtbf and the job's hosts have
  /// histories pai-compile could read (`has_node_mtbf_history`); node_mtbf_seconds is theirs
  /// when `used`.
  bool has_node_mtbf_history = false;
  MtbfHistory node_mtbf_history;
  /// node_mtbf_seconds over the job's nodes (Plan::nodes; spares do not count).
  double job_mtbf_seconds = 0;
  /// Training time between saves: at least 1 once planned; 0 in a plan not planned.
  std::int64_t interval_seconds = 0;
  /// 0 to 1: the expected training time kept over wall time at interval_seconds.
  double expected_ettr = 0;
  friend void fields(auto& v, Like<CheckpointPlan> auto& m) {
    v("intervalSeconds", m.interval_seconds, Seconds{});
    v("expectedEttr", m.expected_ettr);
    v("jobMtbfSeconds", m.job_mtbf_seconds);
    v("nodeMtbfSeconds", m.node_mtbf_seconds, Seconds{});
    v("checkpointCostSeconds", m.checkpoint_cost_seconds, Seconds{});
    v("restartCostSeconds", m.restart_cost_seconds, Seconds{});
    v("source", m.source);
    v.optional_group("nodeMtbfHistory", m.has_node_mtbf_history, [&](auto& h) {
      h("nodes", m.node_mtbf_history.nodes, AtLeast{0});
      h("failures", m.node_mtbf_history.failures, AtLeast{0});
      h("nodeSeconds", m.node_mtbf_history.node_seconds, AtLeast{0});
      h("used", m.node_mtbf_history.used);
    });
  }
};

struct FaultTolerance {
  FaultToleranceMode mode = FaultToleranceMode::Sync;
  bool restart_enabled = true;
  int max_restarts = 3;
  std::int64_t backoff_seconds = 10;
  RestartPolicy policy = RestartPolicy::ExitCodeAndErrorMsg;
  std::vector<std::string> retryable_errors;  ///< added to the built-in patterns
  int max_same_error = 10;
  double max_tolerated_failure_rate = -1;  ///< fraction of instances; -1 = off
  HangDetection hang;
  DiagnosisPolicy diagnosis;
  std::int64_t grace_period_seconds = 30;  ///< SIGTERM -> SIGKILL
  /// How long stopping an instance waits for a checkpoint save its ranks reported in flight
  /// (`ctl checkpoint-begin`) before the stop signal; 0 = no wait.
  std::int64_t checkpoint_wait_seconds = 60;
  WarmStart warm_start;
  CheckpointPlan checkpoint_plan;
  SwapPolicy swap;
  friend void fields(auto& v, Like<FaultTolerance> auto& m) {
    v("mode", m.mode);
    v.group("restart", [&](auto& restart) {
      restart("enabled", m.restart_enabled);
      restart("maxRestarts", m.max_restarts, AtLeast{0});
      restart("backoffSeconds", m.backoff_seconds, Seconds{});
    });
    v("policy", m.policy);
    v("retryableErrors", m.retryable_errors);
    v("maxSameError", m.max_same_error);
    v("maxToleratedFailureRate", m.max_tolerated_failure_rate);
    v("hang", m.hang);
    v("diagnosis", m.diagnosis);
    v("gracePeriodSeconds", m.grace_period_seconds, Seconds{});
    v("checkpointWaitSeconds", m.checkpoint_wait_seconds, Seconds{});
    v("warmStart", m.warm_start);
    v("checkpointPlan", m.checkpoint_plan);
    v("swap", m.swap);
  }
};

struct CustomCheck {
  std::string name;
  std::string command;  ///< run with /bin/sh -c
  std::int64_t timeout_seconds = 60;
  friend void fields(auto& v, Like<CustomCheck> auto& m) {
    v("name", m.name);
    v("command", m.command);
    v("timeoutSeconds", m.timeout_seconds, Seconds{});
  }
};

/// The job-wide fabric check (spec `sanityCheck.checks: [fabric]` and `sanityCheck.fabric`,
/// design §12): after the rendezvous, pairs of nodes measure the TCP bandwidth and latency
/// between them (and, between GPU nodes, the NCCL bus bandwidth) in up to three rounds; bad
/// nodes and links are named and excluded.
struct FabricCheck {
  bool enabled = false;
  double min_tcp_gbps = 0;            ///< absolute floor per pair in Gbit/s; 0 = none
  double min_bus_gbs = 0;             ///< floor on each pair's NCCL bus bandwidth in GB/s
                                      ///< (10^9 bytes/s, nccl-tests' busbw); 0 = none
  std::int64_t duration_seconds = 2;  ///< how long each pair sends, 1..60
  std::int64_t timeout_seconds = 30;  ///< bound on one pair's measurement, 1..600
  int streams = 4;                    ///< TCP connections per pair, 1..64
  bool before_restarts = false;       ///< run again before each job-wide restart
  /// After the pair rounds, one round of every node at once, across the halves of the plan:
  /// congestion that pairs alone do not show (launcher/policy/fabric_congestion.h).
  bool all_nodes = false;
  /// Each pair also runs a 2-node NCCL all-reduce over every GPU of both nodes, when both
  /// nodes' instances have GPUs (SanityCheck::nccl_bytes per GPU; the bus bandwidth as
  /// nccl-tests computes it). false: the TCP engine alone.
  bool nccl = true;
  bool operator==(const FabricCheck&) const = default;
  friend void fields(auto& v, Like<FabricCheck> auto& m) {
    v("allNodes", m.all_nodes);
    v("beforeRestarts", m.before_restarts);
    v("durationSeconds", m.duration_seconds, Seconds{});
    v("enabled", m.enabled);
    v("minBusGbps", m.min_bus_gbs);
    v("minTcpGbps", m.min_tcp_gbps);
    v("nccl", m.nccl);
    v("streams", m.streams, AtLeast{1});
    v("timeoutSeconds", m.timeout_seconds, Seconds{});
  }
};

/// The expected burn throughput of one GPU model at one precision (spec
/// `sanityCheck.burn.baselines`).
struct BurnBaseline {
  std::string model;      ///< the CUDA device name, "NVIDIA H100 80GB HBM3"
  std::string precision;  ///< "bf16", "fp8" or "fp16-wmma" (the embedded kernel)
  double tflops = 0;      ///< per GPU
  bool operator==(const BurnBaseline&) const = default;
  friend void fields(auto& v, Like<BurnBaseline> auto& m) {
    v("model", m.model);
    v("precision", m.precision);
    v("tflops", m.tflops);
  }
};

/// The nodes' check history (spec `sanityCheck.history`): each node appends its check runs to
/// DIR/<node>.jsonl and is quarantined (its checks fail) after `max_failures` failed runs among
/// its last `window`.
struct CheckHistory {
  std::string dir;  ///< absolute; empty = no history
  int window = 5;
  int max_failures = 2;
  bool operator==(const CheckHistory&) const = default;
  friend void fields(auto& v, Like<CheckHistory> auto& m) {
    v("dir", m.dir);
    v("window", m.window, AtLeast{1});
    v("maxFailures", m.max_failures, AtLeast{1});
  }
};

struct SanityCheck {
  bool enabled = true;
  /// Names of the built-in checks to run, in order: gpu, burn, nccl, network, mounts, disk.
  std::vector<std::string> checks;
  std::int64_t burn_seconds = 20;
  double burn_min_tflops = 0;      ///< 0 = no floor
  bool burn_fp8 = true;            ///< also FP8 on GPUs that have it (CC >= 8.9)
  double burn_warn_percent = 3.5;  ///< a GPU this far below median or baseline warns
  double burn_fail_percent = 7;    ///< ... and this far fails
  std::vector<BurnBaseline> burn_baselines;
  double nccl_min_bus_bandwidth_gbps = 0;  ///< 0 = no floor
  std::int64_t nccl_bytes = 256ll << 20;
  std::int64_t disk_min_free_bytes = 0;  ///< 0 = no floor
  std::int64_t timeout_seconds = 300;    ///< per built-in check
  int max_attempts = 3;
  std::vector<CustomCheck> custom;
  FabricCheck fabric;
  CheckHistory history;
  /// What the fabric lint does with nodes whose fingerprint differs from the majority's.
  LintAction lint = LintAction::Warn;
  friend void fields(auto& v, Like<SanityCheck> auto& m) {
    v("enabled", m.enabled);
    v("checks", m.checks);
    v.group("burn", [&](auto& burn) {
      burn("seconds", m.burn_seconds, Seconds{});
      burn("minTflops", m.burn_min_tflops);
      burn("fp8", m.burn_fp8);
      burn("warnPercent", m.burn_warn_percent);
      burn("failPercent", m.burn_fail_percent);
      burn("baselines", m.burn_baselines);
    });
    v("history", m.history);
    v.group("nccl", [&](auto& nccl) {
      nccl("minBusBandwidthGBps", m.nccl_min_bus_bandwidth_gbps);
      nccl("bytes", m.nccl_bytes);
    });
    v.group("disk", [&](auto& disk) { disk("minFreeBytes", m.disk_min_free_bytes); });
    v("fabric", m.fabric);
    v("timeoutSeconds", m.timeout_seconds, Seconds{});
    v("maxAttempts", m.max_attempts);
    v("custom", m.custom);
    v("lint", m.lint, field::optional);
  }
};

/// GPU-idle detection (spec `monitoring.gpuIdle`): a GPU whose NVML utilization stays below
/// `threshold_percent` for `window_seconds` while its node's ranks run gets a verdict.
struct GpuIdle {
  double threshold_percent = 30;      ///< (0, 100]
  std::int64_t window_seconds = 900;  ///< >= 1
  GpuIdleAction action = GpuIdleAction::Warn;
  bool operator==(const GpuIdle&) const = default;
  friend void fields(auto& v, Like<GpuIdle> auto& m) {
    v("action", m.action);
    v("thresholdPercent", m.threshold_percent);
    v.check("thresholdPercent", [&] {
      return m.threshold_percent > 0 && m.threshold_percent <= 100
                 ? ""
                 : "expected a percentage greater than 0 and at most 100";
    });
    v("windowSeconds", m.window_seconds, Seconds{});
    v.check("windowSeconds",
            [&] { return m.window_seconds < 1 ? "expected at least 1 second" : ""; });
  }
};

/// Prometheus metrics (spec `monitoring`): the coordinator serves the text exposition format
/// at http://metrics_address:metrics_port/metrics while the job runs; GPU-idle
/// detection.
struct Monitoring {
  int metrics_port = 0;                     ///< 1..65535; 0 = no metrics endpoint
  /// Numeric IPv4 or IPv6 address to bind; "" = the coordinator's own listening address, so
  /// the endpoint is no more exposed than the coordinator port.
  std::string metrics_address;
  /// After the job ended, the endpoint serves the final state this long at most (or until
  /// scraped twice), when it was scraped during the job; 0 = not at all.
  std::int64_t metrics_linger_seconds = kDefaultMetricsLinger;
  GpuIdle gpu_idle;                         ///< spec `monitoring.gpuIdle`
  /// Two scrapes at Prometheus's usual 15 s.
  static constexpr std::int64_t kDefaultMetricsLinger = 30;
  static constexpr std::int64_t kMaxMetricsLinger = 600;
  friend void fields(auto& v, Like<Monitoring> auto& m) {
    v("gpuIdle", m.gpu_idle, field::present_if(!(m.gpu_idle == GpuIdle{})));
    // The endpoint's two settings are there both or neither (off: a port of 0).
    v.together(m.metrics_port != 0, [&](auto& endpoint) {
      endpoint("metricsAddress", m.metrics_address);
      endpoint("metricsLingerSeconds", m.metrics_linger_seconds, Seconds{});
      endpoint.check("metricsLingerSeconds", [&] {
        // Seconds{} already refused a negative one.
        return m.metrics_linger_seconds > kMaxMetricsLinger ? "expected 0 to 600 seconds" : "";
      });
      endpoint("metricsPort", m.metrics_port);
      endpoint.check("metricsPort", [&] {
        return m.metrics_port < 1 || m.metrics_port > 65535 ? "expected a port from 1 to 65535"
                                                            : "";
      });
    });
  }
};

/// How a job's pods are networked on Kubernetes (spec `kubernetes.network`).
///   Auto: Host for a RoCE or InfiniBand fabric, Pod otherwise.
///   Pod: the cluster's pod network only.
///   Host: hostNetwork, so NCCL sees the nodes' own RDMA NICs and GIDs.
///   Multus: the pod network plus the Multus secondary networks named in
///           Kubernetes::networks (annotation k8s.v1.cni.cncf.io/networks).
enum class PodNetwork { Auto, Pod, Host, Multus };

template <>
struct EnumNames<PodNetwork> {
  static constexpr std::array<EnumName<PodNetwork>, 4> table{{{PodNetwork::Auto, "auto"},
                                                              {PodNetwork::Pod, "pod"},
                                                              {PodNetwork::Host, "host"},
                                                              {PodNetwork::Multus, "multus"}}};
};

/// A pod toleration (spec `kubernetes.tolerations[]`), as Kubernetes spells its fields.
struct Toleration {
  std::string key;            ///< empty = every taint (operator Exists only)
  std::string op = "Equal";   ///< Equal | Exists
  std::string value;          ///< empty with Exists
  std::string effect;         ///< NoSchedule | PreferNoSchedule | NoExecute; empty = all
  std::int64_t seconds = -1;  ///< tolerationSeconds, NoExecute only; -1 = unset
  bool operator==(const Toleration&) const = default;
  friend void fields(auto& v, Like<Toleration> auto& m) {
    v("effect", m.effect);
    v("key", m.key);
    v("operator", m.op);
    v("seconds", m.seconds);
    v("value", m.value);
  }
};

/// A PersistentVolumeClaim mounted into every pod (spec `kubernetes.volumes[]`).
struct ClaimVolume {
  std::string name;        ///< the pod's volume name, a DNS label
  std::string claim_name;  ///< the PersistentVolumeClaim
  std::string mount_path;  ///< absolute path in the container
  bool read_only = false;
  bool operator==(const ClaimVolume&) const = default;
  friend void fields(auto& v, Like<ClaimVolume> auto& m) {
    v("name", m.name);
    v("claimName", m.claim_name);
    v("mountPath", m.mount_path);
    v("readOnly", m.read_only);
  }
};

/// Which Kubernetes objects a job becomes (spec `kubernetes.api`).
///   TrainerV2: a Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1) and the
///              training runtime it refers to, whose JobSet runs the pods.
///   PyTorchJob: training-operator v1's PyTorchJob (kubeflow.org/v1), for older clusters.
///   MpiJob: mpi-operator's MPIJob (kubeflow.org/v2beta1), for older clusters.
enum class KubernetesApi { TrainerV2, PyTorchJob, MpiJob };

template <>
struct EnumNames<KubernetesApi> {
  static constexpr std::array<EnumName<KubernetesApi>, 3> table{
      {{KubernetesApi::TrainerV2, "trainer-v2"},
       {KubernetesApi::PyTorchJob, "pytorchjob"},
       {KubernetesApi::MpiJob, "mpijob"}}};
};

/// The kind of the training runtime a TrainJob refers to (spec `kubernetes.runtimeKind`):
/// namespaced, beside the TrainJob, or cluster-wide.
enum class TrainingRuntimeKind { Namespaced, Cluster };

template <>
struct EnumNames<TrainingRuntimeKind> {
  static constexpr std::array<EnumName<TrainingRuntimeKind>, 2> table{
      {{TrainingRuntimeKind::Namespaced, "TrainingRuntime"},
       {TrainingRuntimeKind::Cluster, "ClusterTrainingRuntime"}}};
};

/// Which scheduler places the pods (spec `kubernetes.scheduler`): the cluster's default, or
/// Volcano (schedulerName volcano and a PodGroup of every pod).
enum class PodScheduler { Default, Volcano };

template <>
struct EnumNames<PodScheduler> {
  static constexpr std::array<EnumName<PodScheduler>, 2> table{
      {{PodScheduler::Default, "default"}, {PodScheduler::Volcano, "volcano"}}};
};

/// The Kubernetes target's settings (spec `kubernetes`), read only when rendering
/// k8s/job.yaml (compiler/targets/k8s/k8s_manifest.h); pai-launch ignores them.
struct Kubernetes {
  KubernetesApi api = KubernetesApi::TrainerV2;
  /// Trainer v2 only: the kind of the runtime rendered beside the TrainJob.
  TrainingRuntimeKind runtime_kind = TrainingRuntimeKind::Namespaced;
  PodNetwork network = PodNetwork::Auto;
  std::vector<std::string> networks;  ///< Multus network names (network Multus only)
  /// Device-plugin resource each rank-holding pod asks for on a RoCE or IB fabric.
  std::string rdma_resource = "rdma/rdma_shared_device_a";
  int rdma_count = 1;             ///< how many of rdma_resource per pod, >= 1
  std::int64_t shm_bytes = 0;     ///< /dev/shm size where roles state no shm; 0 = unset
  std::int64_t ttl_seconds = -1;  ///< ttlSecondsAfterFinished; -1 = unset
  bool gang = false;              ///< schedulingPolicy was given (gang scheduling)
  int min_available = 0;          ///< gang size; 0 = every pod of the job
  std::string queue;              ///< schedulingPolicy.queue (the gang scheduler's); empty = unset
  std::string priority_class;     ///< schedulingPolicy.priorityClass; empty = unset
  PodScheduler scheduler = PodScheduler::Default;
  /// The Kueue LocalQueue (label kueue.x-k8s.io/queue-name); empty = not queued by Kueue.
  std::string kueue_queue;
  /// Kueue topology-aware scheduling: the node label every pod set must share
  /// (podset-required-topology) or should (podset-preferred-topology); at most one is set.
  std::string topology_required;
  std::string topology_preferred;
  /// Trainer v2: how often the JobSet may be recreated after a pod failure pai-launch did not
  /// decide (a pod lost with its node, a launcher killed or one that lost its coordinator):
  /// the spec's spares, at least 1 while restarts are enabled; 0 = never.
  int jobset_max_restarts = 0;
  std::vector<std::pair<std::string, std::string>> node_selector;  ///< sorted by key
  std::vector<Toleration> tolerations;
  std::vector<std::string> image_pull_secrets;
  std::vector<ClaimVolume> volumes;
  bool operator==(const Kubernetes&) const = default;
  friend void fields(auto& v, Like<Kubernetes> auto& m) {
    // The settings added with Trainer v2 are written only when set, so that the plans (and
    // seals) of jobs without them stay as they were.
    v("api", m.api, field::present_if(m.api != KubernetesApi::TrainerV2));
    v("imagePullSecrets", m.image_pull_secrets);
    v("jobSetMaxRestarts", m.jobset_max_restarts, AtLeast{0},
      field::present_if(m.jobset_max_restarts != 0));
    v("kueueQueue", m.kueue_queue, field::present_if(!m.kueue_queue.empty()));
    v("network", m.network);
    v("networks", m.networks);
    v("nodeSelector", m.node_selector);  // an object of strings
    v.group("rdma", [&](auto& rdma) {
      rdma("count", m.rdma_count, AtLeast{1});
      rdma("resource", m.rdma_resource);
    });
    v("runtimeKind", m.runtime_kind,
      field::present_if(m.runtime_kind != TrainingRuntimeKind::Namespaced));
    v("scheduler", m.scheduler, field::present_if(m.scheduler != PodScheduler::Default));
    v.optional_group("schedulingPolicy", m.gang, [&](auto& gang) {
      gang("minAvailable", m.min_available, AtLeast{0});
      gang("priorityClass", m.priority_class);
      gang("queue", m.queue);
    });
    v("shmBytes", m.shm_bytes, AtLeast{0});
    v("tolerations", m.tolerations);
    v("topologyPreferred", m.topology_preferred, field::present_if(!m.topology_preferred.empty()));
    v("topologyRequired", m.topology_required, field::present_if(!m.topology_required.empty()));
    v("ttlSecondsAfterFinished", m.ttl_seconds, AtLeast{-1});
    v("volumes", m.volumes);
  }
};

/// A setting that is on, off, or left to the site's default.
enum class Switch { Unset, On, Off };

template <>
struct EnumNames<Switch> {
  static constexpr std::array<EnumName<Switch>, 3> table{
      {{Switch::Unset, "unset"}, {Switch::On, "on"}, {Switch::Off, "off"}}};
};

/// The pyxis container each node's pai-launch runs in under Slurm (spec `slurm.container`):
/// srun's --container-* options (NVIDIA pyxis, a SPANK plugin running enroot containers).
struct SlurmContainer {
  std::string image;                ///< --container-image; empty = no container
  std::vector<std::string> mounts;  ///< --container-mounts entries, SRC:DST[:FLAGS]
  std::string workdir;              ///< --container-workdir; empty = the image's
  Switch writable = Switch::Unset;  ///< --container-writable (On) / --container-readonly (Off)
  /// --container-mount-home (On) / --no-container-mount-home (Off).
  Switch mount_home = Switch::Unset;
  std::string name;  ///< --container-name; empty = unnamed (removed after the step)
  bool operator==(const SlurmContainer&) const = default;
  friend void fields(auto& v, Like<SlurmContainer> auto& m) {
    v("image", m.image);
    v("mountHome", m.mount_home, field::present_if(m.mount_home != Switch::Unset));
    v("mounts", m.mounts);
    v("name", m.name, field::present_if(!m.name.empty()));
    v("workdir", m.workdir, field::present_if(!m.workdir.empty()));
    v("writable", m.writable, field::present_if(m.writable != Switch::Unset));
  }
};

/// The Slurm target's settings (spec `slurm`), read only when rendering job.sbatch
/// (compiler/targets/slurm/slurm_script.h); pai-launch ignores them. Each is written only
/// when set.
struct Slurm {
  std::string account;      ///< --account
  std::string partition;    ///< --partition
  std::string qos;          ///< --qos
  std::string reservation;  ///< --reservation
  int segment = 0;          ///< --segment (topology/block); 0 = unset
  /// The requeue chain: at most this many successor jobs run the job again when it ends
  /// without a verdict (its coordinator lost); 0 = none.
  int requeue = 0;
  /// srun --mpi; empty = the framework's default (pmix for an mpi job, none otherwise).
  std::string mpi;
  SlurmContainer container;  ///< pyxis; used when container.image is set
  bool operator==(const Slurm&) const = default;
  friend void fields(auto& v, Like<Slurm> auto& m) {
    v("account", m.account, field::present_if(!m.account.empty()));
    v("container", m.container, field::present_if(!m.container.image.empty()));
    v("mpi", m.mpi, field::present_if(!m.mpi.empty()));
    v("partition", m.partition, field::present_if(!m.partition.empty()));
    v("qos", m.qos, field::present_if(!m.qos.empty()));
    v("requeue", m.requeue, AtLeast{0}, field::present_if(m.requeue != 0));
    v("reservation", m.reservation, field::present_if(!m.reservation.empty()));
    v("segment", m.segment, AtLeast{0}, field::present_if(m.segment != 0));
  }
};

/// Megatron-LM's model-parallel sizes (spec `megatron`, framework megatron): their product
/// must divide the world size, which the compiler checks; the ranks get them as
/// PAI_TENSOR_PARALLEL_SIZE, PAI_PIPELINE_PARALLEL_SIZE, PAI_CONTEXT_PARALLEL_SIZE and the
/// data-parallel size that is left as PAI_DATA_PARALLEL_SIZE.
struct Megatron {
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int context_parallel = 1;
  bool operator==(const Megatron&) const = default;
  friend void fields(auto& v, Like<Megatron> auto& m) {
    v("contextParallel", m.context_parallel, AtLeast{1});
    v("pipelineParallel", m.pipeline_parallel, AtLeast{1});
    v("tensorParallel", m.tensor_parallel, AtLeast{1});
  }
};

/// The ranks' log files (spec `logs`): each rank's log of an attempt holds at most about
/// max_bytes on disk, the newest output kept (launcher/supervisor/bounded_log.h).
struct Logs {
  static constexpr std::int64_t kDefaultMaxBytes = std::int64_t{1} << 30;  // 1 GiB
  static constexpr std::int64_t kMinMaxBytes = std::int64_t{1} << 20;      // 1 MiB
  std::int64_t max_bytes = kDefaultMaxBytes;
  bool operator==(const Logs&) const = default;
  friend void fields(auto& v, Like<Logs> auto& m) {
    v("maxBytes", m.max_bytes, AtLeast{static_cast<int>(kMinMaxBytes)});
  }
};

/// Coordinator high availability (spec `coordinator.ha`, docs/coordinator-ha.md): which
/// launcher coordinates is elected through etcd's lease and election API, so that when the
/// launcher hosting the coordinator dies or its node is cut off another one of the job takes
/// over. Off (no members) by default.
struct CoordinatorHa {
  static constexpr std::int64_t kDefaultLeaseSeconds = 3;
  static constexpr std::int64_t kMaxLeaseSeconds = 60;
  /// The etcd members' client URLs, http://HOST:PORT (libpai/etcd_endpoint.h).
  std::vector<std::string> etcd;
  /// How long a coordinator that no longer renews its lease (dead, stalled, cut off from
  /// etcd) still leads; it stops acting before then, and another leads after.
  std::int64_t lease_seconds = kDefaultLeaseSeconds;
  bool operator==(const CoordinatorHa&) const = default;
  friend void fields(auto& v, Like<CoordinatorHa> auto& m) {
    v("etcd", m.etcd);
    v("leaseSeconds", m.lease_seconds, AtLeast{1});
  }
};

struct Plan {
  int plan_version = kPlanVersion;
  std::string compiler;  ///< "pai-compile X.Y.Z" that wrote it
  std::string name;
  std::string image;
  Runtime runtime = Runtime::Host;
  Framework framework = Framework::Custom;
  Fabric fabric;
  std::vector<Mount> mounts;
  std::string output;  ///< PAI_OUTPUT_DIR; empty = not set
  int port_range_min = 20000;
  int port_range_max = 29999;
  Inventory inventory = Inventory::Static;  ///< whether `hosts` and `spares` are placeholders
  std::vector<Host> hosts;                  ///< the inventory, in spec order
  std::vector<Host> spares;
  /// Roles in rank order: the master role first, the others by name.
  std::vector<Role> roles;
  /// Name of the role whose instance 0 hosts MASTER_ADDR.
  std::string master_role;
  /// Who serves the ranks' store on MASTER_ADDR:MASTER_PORT (spec `masterStore`).
  MasterStore master_store = MasterStore::Rank0;
  /// Host name the coordinator should run on; empty = the first placement's host.
  std::string coordinator_host;
  /// Coordinator port requested by the spec; 0 = allocated from the port range.
  int coordinator_port = 0;
  /// Spec `coordinator.ha`; off when it lists no etcd member.
  CoordinatorHa coordinator_ha;
  FaultTolerance fault_tolerance;
  SanityCheck sanity_check;
  /// The job's wall-clock limit from its first start (spec `timeLimit`); the coordinator
  /// cancels the job when it is reached. 0 = none.
  std::int64_t time_limit_seconds = 0;
  /// Metrics endpoint of the coordinator (spec `monitoring`); off by default.
  Monitoring monitoring;
  /// Settings of the Kubernetes target (spec `kubernetes`); defaults when absent.
  Kubernetes kubernetes;
  /// Settings of the Slurm target (spec `slurm`); defaults when absent.
  Slurm slurm;
  /// Megatron-LM's parallel sizes (spec `megatron`); all 1 when absent.
  Megatron megatron;
  /// The ranks' log files (spec `logs`); 1 GiB per rank log when absent.
  Logs logs;

  // --- Assigned by place() (placement.h); recomputed when a spare replaces a node. ---
  std::vector<Placement> placements;  ///< roles in order, instances in order
  Endpoint coordinator;
  Endpoint master;
  /// Ranks of the job: every process pai-launch starts except those of an MPI job's
  /// launcher role (holds_ranks), which runs mpirun and holds no rank. Ranks are
  /// 0..world_size-1; the launcher role's processes come after them.
  int world_size = 0;
  int nodes = 0;  ///< total instances of the job

  /// The seal ("hash") of the plan.json this plan was read and verified from (plan_seal.h);
  /// empty for a plan made in memory. Not part of the plan's text: plan_to_json seals anew.
  /// Launchers of one job compare it when a node joins (docs/protocol.md).
  std::string seal;
  /// The fields of plan.json but "hash" (the seal, plan_json.h), in the order a launcher
  /// checks them; `seal` and placements' role_index are not written.
  friend void fields(auto& v, Like<Plan> auto& m) {
    v("planVersion", m.plan_version);
    v("compiler", m.compiler);
    v("name", m.name);
    v("image", m.image);
    v("runtime", m.runtime);
    v("framework", m.framework);
    v("fabric", m.fabric);
    v("mounts", m.mounts);
    v("output", m.output);
    v.group("portRange", [&](auto& range) {
      range("min", m.port_range_min, AtLeast{0});
      range("max", m.port_range_max, AtLeast{0});
    });
    // Written only for a non-static inventory, so plans (and their seals) of bare-metal jobs
    // stay as they were before the member existed; the same for monitoring, kubernetes and
    // slurm without settings of their own.
    v("inventory", m.inventory, field::present_if(m.inventory != Inventory::Static));
    v("hosts", m.hosts);
    v("spares", m.spares);
    v("roles", m.roles);
    v("masterRole", m.master_role);
    v("masterStore", m.master_store, field::present_if(m.master_store != MasterStore::Rank0));
    v("coordinatorHost", m.coordinator_host);
    v("coordinatorPort", m.coordinator_port, AtLeast{0});
    v("coordinatorHa", m.coordinator_ha, field::present_if(!m.coordinator_ha.etcd.empty()));
    v("faultTolerance", m.fault_tolerance);
    v("sanityCheck", m.sanity_check);
    v("timeLimitSeconds", m.time_limit_seconds, Seconds{});
    v("monitoring", m.monitoring,
      field::present_if(m.monitoring.metrics_port != 0 || !(m.monitoring.gpu_idle == GpuIdle{})));
    v("kubernetes", m.kubernetes, field::present_if(!(m.kubernetes == Kubernetes{})));
    v("slurm", m.slurm, field::present_if(!(m.slurm == Slurm{})));
    v("megatron", m.megatron, field::present_if(!(m.megatron == Megatron{})));
    v("logs", m.logs, field::present_if(!(m.logs == Logs{})));
    v("placements", m.placements);
    v("coordinator", m.coordinator);
    v("master", m.master);
    v("worldSize", m.world_size, AtLeast{0});
    v("nodes", m.nodes, AtLeast{0});
  }
};

/// The placement of instance `index` of role `role`, or nullptr.
const Placement* find_placement(const Plan& plan, const std::string& role, int index);
/// The role named `name`, or nullptr.
const Role* find_role(const Plan& plan, const std::string& name);
/// False for the role that runs an MPI job's mpirun (`launcher` of a `framework: mpi`
/// job): its processes are not MPI ranks. True for every other role.
bool holds_ranks(const Plan& plan, const Role& role);
/// Every process pai-launch starts, numbered 0..process_count-1 (first_rank onwards):
/// world_size plus the processes of the MPI launcher role.
int process_count(const Plan& plan);
/// The global rank of the placement's last local rank (its role's nproc_per_node, 1 for a role
/// the plan does not have).
int last_rank(const Plan& plan, const Placement& placement);

}  // namespace pai
