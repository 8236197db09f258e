// The Plan: the normalized job, the only contract between pai-compile and pai-launch.
//
// Every default is filled in; placements, ranks and ports are assigned. Its JSON form
// (plan_json.h) is described by schemas/plan.schema.json.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libpai/enum_names.h"

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
/// The training framework; selects defaults (env convention, MPI rules).
enum class Framework { PyTorch, Mpi, TensorFlow, DeepSpeed, Custom };
/// Network fabric preset for NCCL/Gloo.
enum class FabricType { None, Roce, Ib, Ethernet };
/// Which flavour of the env contract (design §5) a role's processes get.
///   PerProcess: torch style, RANK/WORLD_SIZE count processes.
///   PerNode: DLC/ACP style, RANK/WORLD_SIZE count nodes; the user's command runs its own
///            torchrun/mpirun/deepspeed.
enum class EnvConvention { PerProcess, PerNode };
/// sync: a failure restarts the whole job; async: only the failed instance.
enum class FaultToleranceMode { Sync, Async };
/// Which failures are retried.
enum class RestartPolicy { ExitCodeAndErrorMsg, ExitCode, OnFailure, Never };
/// What a diagnosis verdict (launcher/policy/diagnosis.h) does: warn records it and shows it;
/// isolate also stops the job, excludes the node it names, brings a spare and restarts.
enum class DiagnosisAction { Warn, Isolate };
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

/// Spelling of the enums in the spec and in plan.json (to_string, enum_from_string and
/// enum_values of libpai/enum_names.h read these tables).
template <>
struct EnumNames<Runtime> {
  static constexpr std::array<EnumName<Runtime>, 3> table{
      {{Runtime::Host, "host"}, {Runtime::Docker, "docker"}, {Runtime::Apptainer, "apptainer"}}};
};
template <>
struct EnumNames<Framework> {
  static constexpr std::array<EnumName<Framework>, 5> table{{{Framework::PyTorch, "pytorch"},
                                                             {Framework::Mpi, "mpi"},
                                                             {Framework::TensorFlow, "tensorflow"},
                                                             {Framework::DeepSpeed, "deepspeed"},
                                                             {Framework::Custom, "custom"}}};
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
  static constexpr std::array<EnumName<EnvConvention>, 2> table{
      {{EnvConvention::PerProcess, "perProcess"}, {EnvConvention::PerNode, "perNode"}}};
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
struct EnumNames<GpuIdleAction> {
  static constexpr std::array<EnumName<GpuIdleAction>, 2> table{
      {{GpuIdleAction::Warn, "warn"}, {GpuIdleAction::Restart, "restart"}}};
};
template <>
struct EnumNames<Inventory> {
  static constexpr std::array<EnumName<Inventory>, 2> table{
      {{Inventory::Static, "static"}, {Inventory::Slurm, "slurm"}}};
};

/// A machine of the inventory. `slots` is the number of processes/GPUs it offers (0 =
/// not stated, not checked).
struct Host {
  std::string name;
  std::string address;
  int slots = 0;
};

/// A network endpoint inside the job (coordinator, PyTorch master).
struct Endpoint {
  std::string host;     ///< host name from the inventory
  std::string address;  ///< address processes connect to
  int port = 0;
};

struct Fabric {
  FabricType type = FabricType::None;
  std::string interface;            ///< NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME; empty = unset
  std::vector<std::string> hcas;    ///< NCCL_IB_HCA; RoCE and IB only
  int gid_index = -1;               ///< NCCL_IB_GID_INDEX; RoCE only (-1 = unset)
  int traffic_class = -1;           ///< NCCL_IB_TC; RoCE only (-1 = unset)
};

struct Mount {
  std::string name;
  std::string source;
  std::string target;
  bool read_only = false;
};

struct Resources {
  int gpu = 0;
  double cpu = 0;              ///< cores; 0 = not stated
  std::int64_t memory_bytes = 0;  ///< 0 = not stated
  std::int64_t shm_bytes = 0;     ///< 0 = not stated
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
};

/// One role instance placed on one host.
struct Placement {
  std::string role;  ///< role name
  int role_index = 0;  ///< index of the role in Plan::roles
  int index = 0;     ///< instance index within the role
  int node_rank = 0; ///< index of this instance among all instances of the job
  int first_rank = 0;  ///< global rank of this instance's local rank 0
  int first_role_rank = 0;  ///< rank within the role of this instance's local rank 0
  Host host;
  /// label -> the ports reserved for that label on this instance, in order.
  std::map<std::string, std::vector<int>> ports;
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
};

/// Naming the slow or hung rank from the ranks' telemetry (design §12).
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
};

struct CustomCheck {
  std::string name;
  std::string command;  ///< run with /bin/sh -c
  std::int64_t timeout_seconds = 60;
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
};

/// The expected burn throughput of one GPU model at one precision (spec
/// `sanityCheck.burn.baselines`).
struct BurnBaseline {
  std::string model;      ///< the CUDA device name, "NVIDIA H100 80GB HBM3"
  std::string precision;  ///< "bf16", "fp8" or "fp16-wmma" (the embedded kernel)
  double tflops = 0;      ///< per GPU
  bool operator==(const BurnBaseline&) const = default;
};

/// The nodes' check history (spec `sanityCheck.history`): each node appends its check runs to
/// DIR/<node>.jsonl and is quarantined (its checks fail) after `max_failures` failed runs among
/// its last `window`.
struct CheckHistory {
  std::string dir;  ///< absolute; empty = no history
  int window = 5;
  int max_failures = 2;
  bool operator==(const CheckHistory&) const = default;
};

struct SanityCheck {
  bool enabled = true;
  /// Names of the built-in checks to run, in order: gpu, burn, nccl, network, mounts, disk.
  std::vector<std::string> checks;
  std::int64_t burn_seconds = 20;
  double burn_min_tflops = 0;           ///< 0 = no floor
  bool burn_fp8 = true;                 ///< also FP8 on GPUs that have it (CC >= 8.9)
  double burn_warn_percent = 3.5;       ///< a GPU this far below median or baseline warns
  double burn_fail_percent = 7;         ///< ... and this far fails
  std::vector<BurnBaseline> burn_baselines;
  double nccl_min_bus_bandwidth_gbps = 0;  ///< 0 = no floor
  std::int64_t nccl_bytes = 256ll << 20;
  std::int64_t disk_min_free_bytes = 0;   ///< 0 = no floor
  std::int64_t timeout_seconds = 300;     ///< per built-in check
  int max_attempts = 3;
  std::vector<CustomCheck> custom;
  FabricCheck fabric;
  CheckHistory history;
};

/// GPU-idle detection (spec `monitoring.gpuIdle`): a GPU whose NVML utilization stays below
/// `threshold_percent` for `window_seconds` while its node's ranks run gets a verdict.
struct GpuIdle {
  double threshold_percent = 30;      ///< (0, 100]
  std::int64_t window_seconds = 900;  ///< >= 1
  GpuIdleAction action = GpuIdleAction::Warn;
  bool operator==(const GpuIdle&) const = default;
};

/// Prometheus metrics (spec `monitoring`): the coordinator serves the text exposition format
/// at http://metrics_address:metrics_port/metrics while the job runs; GPU-idle
/// detection.
struct Monitoring {
  int metrics_port = 0;                     ///< 1..65535; 0 = no metrics endpoint
  std::string metrics_address = "0.0.0.0";  ///< numeric IPv4 or IPv6 address to bind
  GpuIdle gpu_idle;                         ///< spec `monitoring.gpuIdle`
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
};

/// A PersistentVolumeClaim mounted into every pod (spec `kubernetes.volumes[]`).
struct ClaimVolume {
  std::string name;        ///< the pod's volume name, a DNS label
  std::string claim_name;  ///< the PersistentVolumeClaim
  std::string mount_path;  ///< absolute path in the container
  bool read_only = false;
  bool operator==(const ClaimVolume&) const = default;
};

/// The Kubernetes target's settings (spec `kubernetes`), read only when rendering
/// k8s/job.yaml (compiler/targets/k8s/k8s_manifest.h); pai-launch ignores them.
struct Kubernetes {
  PodNetwork network = PodNetwork::Auto;
  std::vector<std::string> networks;  ///< Multus network names (network Multus only)
  /// Device-plugin resource each rank-holding pod asks for on a RoCE or IB fabric.
  std::string rdma_resource = "rdma/rdma_shared_device_a";
  int rdma_count = 1;             ///< how many of rdma_resource per pod, >= 1
  std::int64_t shm_bytes = 0;     ///< /dev/shm size where roles state no shm; 0 = unset
  std::int64_t ttl_seconds = -1;  ///< runPolicy.ttlSecondsAfterFinished; -1 = unset
  bool gang = false;              ///< runPolicy.schedulingPolicy is rendered
  int min_available = 0;          ///< gang size; 0 = every pod of the job
  std::string queue;              ///< schedulingPolicy.queue; empty = unset
  std::string priority_class;     ///< schedulingPolicy.priorityClass; empty = unset
  std::vector<std::pair<std::string, std::string>> node_selector;  ///< sorted by key
  std::vector<Toleration> tolerations;
  std::vector<std::string> image_pull_secrets;
  std::vector<ClaimVolume> volumes;
  bool operator==(const Kubernetes&) const = default;
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
  std::vector<Host> hosts;   ///< the inventory, in spec order
  std::vector<Host> spares;
  /// Roles in rank order: the master role first, the others by name.
  std::vector<Role> roles;
  /// Name of the role whose instance 0 hosts MASTER_ADDR.
  std::string master_role;
  /// Host name the coordinator should run on; empty = the first placement's host.
  std::string coordinator_host;
  /// Coordinator port requested by the spec; 0 = allocated from the port range.
  int coordinator_port = 0;
  FaultTolerance fault_tolerance;
  SanityCheck sanity_check;
  /// The job's wall-clock limit from its first start (spec `timeLimit`); the coordinator
  /// cancels the job when it is reached. 0 = none.
  std::int64_t time_limit_seconds = 0;
  /// Metrics endpoint of the coordinator (spec `monitoring`); off by default.
  Monitoring monitoring;
  /// Settings of the Kubernetes target (spec `kubernetes`); defaults when absent.
  Kubernetes kubernetes;

  // --- Assigned by place() (placement.h); recomputed when a spare replaces a node. ---
  std::vector<Placement> placements;  ///< roles in order, instances in order
  Endpoint coordinator;
  Endpoint master;
  /// Ranks of the job: every process pai-launch starts except those of an MPI job's
  /// launcher role (holds_ranks), which runs mpirun and holds no rank. Ranks are
  /// 0..world_size-1; the launcher role's processes come after them.
  int world_size = 0;
  int nodes = 0;       ///< total instances of the job

  /// The seal ("hash") of the plan.json this plan was read and verified from (plan_seal.h);
  /// empty for a plan made in memory. Not part of the plan's text: plan_to_json seals anew.
  /// Launchers of one job compare it when a node joins (docs/protocol.md).
  std::string seal;
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
