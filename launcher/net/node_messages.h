// The coordinator protocol's messages from a node launcher to its coordinator (docs/protocol.md,
// "Node launcher -> coordinator"), with `heartbeat` and `log`, which other directions share.
// Each struct lists its wire fields once, in a table beside its members (libpai/fields.h,
// options in wire_fields.h). Included through protocol.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "launcher/net/wire_fields.h"

namespace pai::net {

/// `heartbeat` {}: the coordinator's to every launcher each interval; control clients may
/// send it too (ignored) and skip any they get.
struct Heartbeat {
  static constexpr char kType[] = "heartbeat";
  bool operator==(const Heartbeat&) const = default;
};

/// `log`: output of one rank, from its launcher and relayed as is to the control clients
/// that asked for it.
struct Log {
  static constexpr char kType[] = "log";
  int rank = 0;      ///< global rank
  int instance = 0;  ///< global instance number of the rank
  std::string data;  ///< raw bytes
  bool operator==(const Log&) const = default;
  friend void fields(auto& v, Like<Log> auto& m) {
    v("rank", m.rank, RankNumber{});
    v("instance", m.instance, InstanceNumber{});
    v("data", m.data, base64);
  }
};

// ---- Node launcher -> coordinator ----

/// `join`: a launcher's first message.
struct Join {
  static constexpr char kType[] = "join";
  std::string node;           ///< the node it claims to be
  std::string checks = "[]";  ///< JSON array text of checks::to_json; compact once parsed
  std::int64_t pid = 0;       ///< the launcher's process id
  /// The seal of the launcher's plan.json (libpai/plan_seal.h), compared with the
  /// coordinator's own; optional on the wire, "" when absent.
  std::string seal;
  /// With coordinator.ha, a launcher joining the next coordinator: the instance it ran last
  /// and that run's attempt (absent before any), so that a coordinator taking the job over
  /// starts past it.
  std::optional<int> ran_instance = std::nullopt;
  std::optional<int> ran_attempt = std::nullopt;
  bool operator==(const Join&) const = default;
  friend void fields(auto& v, Like<Join> auto& m) {
    v("node", m.node);
    v("checks", m.checks, JsonArrayText{});
    v("pid", m.pid);
    v("seal", m.seal, field::present_if(!m.seal.empty()), SealForm{});
    v("ranInstance", m.ran_instance, InstanceNumber{});  // std::optional: absent when unset
    v("ranAttempt", m.ran_attempt, Range{0, kMaxAttempt});
  }
};

/// `checks`: the results of a `run-checks` request.
struct Checks {
  static constexpr char kType[] = "checks";
  std::string checks = "[]";  ///< JSON array text of checks::to_json; compact once parsed
  bool operator==(const Checks&) const = default;
  friend void fields(auto& v, Like<Checks> auto& m) { v("checks", m.checks, JsonArrayText{}); }
};

/// How a process ended: exit code, or the signal that killed it (0: none).
struct ProcessStatus {
  int code = 0;
  int signal = 0;
  bool operator==(const ProcessStatus&) const = default;
  friend void fields(auto& v, Like<ProcessStatus> auto& m) {
    v("code", m.code, Range{0, 255});
    v("signal", m.signal, Range{0, 128});
  }
};

/// The launcher's failure classification of an exit.
struct ExitClassification {
  bool retryable = false;
  std::string reason;
  std::string matched_line;
  std::string signature;
  bool operator==(const ExitClassification&) const = default;
  friend void fields(auto& v, Like<ExitClassification> auto& m) {
    v("retryable", m.retryable);
    v("reason", m.reason);
    v("matchedLine", m.matched_line);
    v("signature", m.signature);
  }
};

/// `exited`: one process of the sender's instance ended.
struct Exited {
  static constexpr char kType[] = "exited";
  int instance = 0;
  int local_rank = 0;
  ProcessStatus status;
  ExitClassification classification;
  bool stopping = false;  ///< the launcher was stopping it
  bool operator==(const Exited&) const = default;
  friend void fields(auto& v, Like<Exited> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("localRank", m.local_rank, Range{0, kIntMax});
    v("status", m.status);
    v("classification", m.classification);
    v("stopping", m.stopping);
  }
};

/// `stopped`: the last process of the instance is gone.
struct Stopped {
  static constexpr char kType[] = "stopped";
  int instance = 0;
  bool operator==(const Stopped&) const = default;
  friend void fields(auto& v, Like<Stopped> auto& m) {
    v("instance", m.instance, InstanceNumber{});
  }
};

/// `checkpointed`: a rank of the instance saved a checkpoint of `step` that it began while
/// its node's advice had request `request` with `report` set (a swap's request, the
/// coordinator waits for it).
struct Checkpointed {
  static constexpr char kType[] = "checkpointed";
  int instance = 0;
  std::int64_t step = 0;
  std::int64_t request = 0;
  bool operator==(const Checkpointed&) const = default;
  friend void fields(auto& v, Like<Checkpointed> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("step", m.step, NonNegative{});
    v("request", m.request, NonNegative{});
    v.check("request", [&] { return m.request < 1 ? "expected a request number from 1" : ""; });
  }
};

/// `hang`: ranks of the instance stuck (exiting: past exitInterval) for `seconds`.
struct Hang {
  static constexpr char kType[] = "hang";
  int instance = 0;
  bool exiting = false;
  std::int64_t seconds = 0;
  std::string reason;  ///< the launcher's words; optional on the wire, always sent
  bool operator==(const Hang&) const = default;
  friend void fields(auto& v, Like<Hang> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("exiting", m.exiting);
    v("seconds", m.seconds, NonNegative{});
    v("reason", m.reason, field::optional);
  }
};

/// What the kernel counted for one running rank (its cgroup: the rank and all its children).
struct RankUsage {
  std::int64_t rank = 0;                ///< global rank
  std::int64_t pid = 0;                 ///< the rank's process, > 0
  std::int64_t cpu_ms = 0;              ///< CPU time, user and system
  std::int64_t memory_bytes = -1;       ///< memory in use now; -1: unknown
  std::int64_t memory_peak_bytes = -1;  ///< the most it used; -1: unknown
  bool operator==(const RankUsage&) const = default;
  friend void fields(auto& v, Like<RankUsage> auto& m) {
    v("rank", m.rank, NonNegative{});
    v("pid", m.pid);
    v("cpuMs", m.cpu_ms, NonNegative{});
    v("memoryBytes", m.memory_bytes);
    v("memoryPeakBytes", m.memory_peak_bytes);
    v.check("pid", [&] { return m.pid > 0 ? "" : "expected a positive integer"; });
    v.check("memoryBytes",
            [&] { return m.memory_bytes >= -1 ? "" : "expected -1 or a byte count"; });
    v.check("memoryPeakBytes",
            [&] { return m.memory_peak_bytes >= -1 ? "" : "expected -1 or a byte count"; });
  }
};

/// Most entries of a RankTelemetry's tcpSlowPeers.
inline constexpr std::size_t kMaxTcpSlowPeers = 4;

/// One running rank's telemetry ring summarized over the window since the launcher's previous
/// heartbeat (design §12). Collective figures count the world group (group 0) only.
/// Most entries of a RankTelemetry's ncclPeers.
inline constexpr std::size_t kMaxNcclPeers = 8;

/// One link of a rank in the world communicator as pai's NCCL profiler plugin counted its
/// network transfers in the window (launcher/supervisor/peer_traffic.h): "send" to `peer` or
/// "recv" from it; rate = bytes / busy time.
struct NcclPeer {
  int peer = 0;             ///< the peer's global rank
  std::string dir;          ///< "send" or "recv"
  std::int64_t bytes = 0;   ///< completed in the window
  std::int64_t busy_us = 0;  ///< time of the window with a transfer in flight
  std::int64_t stalled_ms = -1;  ///< in flight with nothing completed for so long; -1: not
  bool operator==(const NcclPeer&) const = default;
  friend void fields(auto& v, Like<NcclPeer> auto& m) {
    v("peer", m.peer, RankNumber{});
    v("dir", m.dir);
    v.check("dir", [&] { return not_one_of(m.dir, {"send", "recv"}); });
    v("bytes", m.bytes, NonNegative{});
    v("busyUs", m.busy_us, NonNegative{});
    v("stalledMs", m.stalled_ms, NoneOrMore{});
  }
};

struct RankTelemetry {
  std::int64_t rank = 0;          ///< global rank
  std::int64_t step = -1;         ///< the last step any record named; -1: none yet
  std::int64_t steps = 0;         ///< timed steps (begin and end seen) ended in the window
  std::int64_t step_us = 0;       ///< their durations, summed
  std::int64_t window_us = 0;     ///< the window's length
  std::int64_t comm_us = 0;       ///< time of the window with a collective open, 0..window_us
  std::int64_t entered = 0;       ///< highest collective seq entered
  std::int64_t exited = 0;        ///< largest n with 1..n all exited, 0..entered
  std::int64_t open_ms = -1;      ///< how long collective exited + 1 has been open; -1: none
  int op = 0;                     ///< its op (pai_telemetry_op)
  std::int64_t quiet_ms = -1;     ///< since the rank's last record; -1: none yet
  std::int64_t lost = 0;          ///< records unaccounted for since the rank started
  std::int64_t tcp_rtt_us = -1;   ///< median RTT of its processes' TCP connections; -1: none
  std::int64_t tcp_retrans = -1;  ///< their retransmitted segments, summed; -1: none
  /// Optional: numeric addresses its connections are much slower to than to its other peers
  std::vector<std::string> tcp_slow_peers = {};
  /// Optional: numeric addresses of its connections waiting out a retransmission timeout
  std::vector<std::string> tcp_stalled_peers = {};
  /// Optional: its NCCL network links in the window, the stalled and slowest first (at most
  /// kMaxNcclPeers), and how many links had traffic in all
  std::vector<NcclPeer> nccl_peers = {};
  std::int64_t nccl_peer_links = 0;
  bool operator==(const RankTelemetry&) const = default;
  friend void fields(auto& v, Like<RankTelemetry> auto& m) {
    v("rank", m.rank, NonNegative{});
    v("step", m.step, NoneOrMore{});
    v("steps", m.steps, NonNegative{});
    v("stepUs", m.step_us, NonNegative{});
    v("windowUs", m.window_us, NonNegative{});
    v("commUs", m.comm_us, NonNegative{});
    v("entered", m.entered, NonNegative{});
    v("exited", m.exited, NonNegative{});
    v("openMs", m.open_ms, NoneOrMore{});
    v("op", m.op, Range{0, 255});
    v("quietMs", m.quiet_ms, NoneOrMore{});
    v("lost", m.lost, NonNegative{});
    v("tcpRttUs", m.tcp_rtt_us, NoneOrMore{});
    v("tcpRetrans", m.tcp_retrans, NoneOrMore{});
    v.check("commUs", [&] { return m.comm_us > m.window_us ? "expected at most windowUs" : ""; });
    v.check("exited", [&] { return m.exited > m.entered ? "expected at most entered" : ""; });
    v("tcpSlowPeers", m.tcp_slow_peers, field::present_if(!m.tcp_slow_peers.empty()),
      PeerAddresses{});
    v("tcpStalledPeers", m.tcp_stalled_peers, field::present_if(!m.tcp_stalled_peers.empty()),
      PeerAddresses{});
    v("ncclPeers", m.nccl_peers, field::present_if(!m.nccl_peers.empty()),
      MaxItems{kMaxNcclPeers, "peers"});
    v("ncclPeerLinks", m.nccl_peer_links, field::present_if(m.nccl_peer_links != 0),
      NonNegative{});
  }
};

/// Most GPUs one node reports (entries of `gpus`, and their indexes' bound).
inline constexpr std::size_t kMaxNodeGpus = 64;

/// One GPU of a node as NVML sampled it while the node's ranks ran (issue 18).
struct GpuSample {
  std::int64_t index = 0;                ///< NVML's index, 0..kMaxNodeGpus - 1
  int utilization = -1;                  ///< percent of the time a kernel ran; -1: unknown
  std::int64_t memory_used_bytes = -1;   ///< -1: unknown
  std::int64_t memory_total_bytes = -1;  ///< -1: unknown; >= used
  bool operator==(const GpuSample&) const = default;
  friend void fields(auto& v, Like<GpuSample> auto& m) {
    v("index", m.index, NonNegative{});
    v("utilization", m.utilization, Range{-1, 100});
    v("memoryUsedBytes", m.memory_used_bytes, NoneOrMore{});
    v("memoryTotalBytes", m.memory_total_bytes, NoneOrMore{});
    v.check("index", [&]() -> std::string {
      if (m.index < static_cast<std::int64_t>(kMaxNodeGpus)) return "";
      return "expected an index below " + std::to_string(kMaxNodeGpus);
    });
    v.check("memoryUsedBytes", [&] {
      const bool known = m.memory_used_bytes >= 0 && m.memory_total_bytes >= 0;
      return known && m.memory_used_bytes > m.memory_total_bytes
                 ? "expected at most memoryTotalBytes"
                 : "";
    });
  }
};

/// "" when no two samples have the same index, else "GPU N listed twice" for the first
/// repeated one. Indexes must be below kMaxNodeGpus.
std::string repeated_gpu(const std::vector<GpuSample>& gpus);

/// Most RDMA ports one node reports, and counters per port.
inline constexpr std::size_t kMaxNicPorts = 32;
inline constexpr std::size_t kMaxNicCounters = 64;

/// How much one counter of a port grew in the window (libpai/nic_counter_kinds.h names them:
/// "hw_counters/np_cnp_sent"); a counter that went backwards (reset) is left out.
struct NicCounterDelta {
  std::string counter;
  std::int64_t delta = 0;
  bool operator==(const NicCounterDelta&) const = default;
  friend void fields(auto& v, Like<NicCounterDelta> auto& m) {
    v("counter", m.counter, ByteLength{1, 64});
    v("delta", m.delta, NonNegative{});
  }
};

/// One RDMA port of the node as its NIC telemetry read it in the heartbeat's window
/// (launcher/checks/nic_counters.h): the byte counters always, the others when they grew.
struct NicPort {
  std::string port;          ///< "mlx5_0/1"
  std::string netdev;        ///< "eth2"; "" none
  std::string state;         ///< "ACTIVE", "DOWN"...; "" unreadable (gone)
  std::int64_t window_ms = 0;  ///< since the previous read; 0: the first read (no deltas)
  std::vector<NicCounterDelta> counters;
  bool operator==(const NicPort&) const = default;
  friend void fields(auto& v, Like<NicPort> auto& m) {
    v("port", m.port, ByteLength{1, 64});
    v("netdev", m.netdev, ByteLength{0, 32});
    v("state", m.state, ByteLength{0, 32});
    v("windowMs", m.window_ms, NonNegative{});
    v("counters", m.counters, field::present_if(!m.counters.empty()),
      MaxItems{kMaxNicCounters, "counters"});
  }
};

/// One running instance in a launcher's `heartbeat`.
struct HeartbeatInstance {
  int instance = 0;
  std::int64_t idle_ms = 0;        ///< since its last output or progress report
  std::int64_t hang_interval = 0;  ///< seconds; <= 0: it never hangs
  std::int64_t step = 0;           ///< the latest progress step
  std::vector<RankUsage> ranks;    ///< optional on the wire; empty without cgroups
  /// Optional on the wire: the ranks that write a telemetry ring
  std::vector<RankTelemetry> telemetry;
  bool operator==(const HeartbeatInstance&) const = default;
  friend void fields(auto& v, Like<HeartbeatInstance> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("idleMs", m.idle_ms, NonNegative{});
    v("hangInterval", m.hang_interval);
    v("step", m.step);
    v("ranks", m.ranks, field::present_if(!m.ranks.empty()));
    v("telemetry", m.telemetry, field::present_if(!m.telemetry.empty()));
  }
};

/// `heartbeat` from a launcher: every interval, with its running instances.
struct NodeHeartbeat {
  static constexpr char kType[] = "heartbeat";
  std::vector<HeartbeatInstance> instances;
  /// Optional on the wire: the node's GPUs when they were sampled since the previous
  /// heartbeat (every few seconds while its ranks run, where NVML is present); distinct indexes
  std::vector<GpuSample> gpus = {};  // `= {}`: initializers from before it may leave it out
  /// Optional on the wire: the RDMA ports the job uses, read in this heartbeat's window
  std::vector<NicPort> nics = {};
  bool operator==(const NodeHeartbeat&) const = default;
  friend void fields(auto& v, Like<NodeHeartbeat> auto& m) {
    v("instances", m.instances);
    v("gpus", m.gpus, field::present_if(!m.gpus.empty()), MaxItems{kMaxNodeGpus, "GPUs"});
    v.check("gpus", [&] { return repeated_gpu(m.gpus); });
    v("nics", m.nics, field::present_if(!m.nics.empty()), MaxItems{kMaxNicPorts, "ports"});
  }
};

/// `failure`: the root-cause summary (log tail) of a failed rank.
struct Failure {
  static constexpr char kType[] = "failure";
  int instance = 0;
  int rank = 0;  ///< global rank
  std::string summary;
  bool operator==(const Failure&) const = default;
  friend void fields(auto& v, Like<Failure> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("rank", m.rank, Range{0, kIntMax});
    v("summary", m.summary);
  }
};

/// Longest RankStacks::frame a receiver accepts.
inline constexpr std::size_t kMaxStackFrame = 1024;

/// One rank's stacks in `forensics`.
struct RankStacks {
  std::int64_t rank = 0;  ///< global rank
  std::string place;      ///< "collective", "outside" or "unknown"
  std::string frame;      ///< the frame that shows it; at most kMaxStackFrame bytes, may be ""
  bool operator==(const RankStacks&) const = default;
  friend void fields(auto& v, Like<RankStacks> auto& m) {
    v("rank", m.rank, NonNegative{});
    v("place", m.place);
    v("frame", m.frame);
    v.check("place", [&] { return not_one_of(m.place, {"collective", "outside", "unknown"}); });
    v.check("frame", [&] { return longer_than(m.frame, kMaxStackFrame); });
  }
};

/// `forensics`: the hang forensics of the sender's instance in attempt `attempt` were
/// collected (its stacks are in `folder` on that node); where each rank's stack stood.
struct Forensics {
  static constexpr char kType[] = "forensics";
  int instance = 0;
  int attempt = 0;
  std::string folder;
  std::vector<RankStacks> ranks;  ///< required, unlike a heartbeat's lists
  bool operator==(const Forensics&) const = default;
  friend void fields(auto& v, Like<Forensics> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("attempt", m.attempt, Range{0, kMaxAttempt});
    v("folder", m.folder);
    v("ranks", m.ranks);
  }
};

/// `exec-output` from a launcher: output of the `exec` with `id`.
struct ExecOutput {
  static constexpr char kType[] = "exec-output";
  std::int64_t id = 0;
  Stream stream = Stream::Stdout;
  std::string data;  ///< raw bytes
  bool operator==(const ExecOutput&) const = default;
  friend void fields(auto& v, Like<ExecOutput> auto& m) {
    v("id", m.id);
    v("stream", m.stream);
    v("data", m.data, base64);
  }
};

/// `exec-exit` from a launcher: the `exec` with `id` ended with `code`.
struct ExecExit {
  static constexpr char kType[] = "exec-exit";
  std::int64_t id = 0;
  int code = 0;
  bool operator==(const ExecExit&) const = default;
  friend void fields(auto& v, Like<ExecExit> auto& m) {
    v("id", m.id);
    v("code", m.code);
  }
};

/// `log-end`: the tail a `subscribe-logs` asked for was sent.
struct LogEnd {
  static constexpr char kType[] = "log-end";
  bool operator==(const LogEnd&) const = default;
};

/// `cancel` from a launcher: it received `signal` (SIGTERM, SIGINT, SIGHUP); the whole job is
/// cancelled, not failed.
struct Cancel {
  static constexpr char kType[] = "cancel";
  int signal = 0;
  bool operator==(const Cancel&) const = default;
  friend void fields(auto& v, Like<Cancel> auto& m) { v("signal", m.signal, Range{1, 64}); }
};

/// Longest reason a `node-failed` carries.
inline constexpr std::size_t kMaxNodeFailedReason = 4096;

/// `node-failed`: the launcher gave up on its own, before the coordinator told it to end (it
/// could not serve the ranks' store, ran out of descriptors): `reason` is what it said. It
/// then closes the connection and exits; the coordinator takes the node as lost, for that
/// reason.
struct NodeFailed {
  static constexpr char kType[] = "node-failed";
  std::string reason;
  bool operator==(const NodeFailed&) const = default;
  friend void fields(auto& v, Like<NodeFailed> auto& m) {
    v("reason", m.reason, ByteLength{1, kMaxNodeFailedReason});
  }
};

/// Bytes of an ncclUniqueId.
inline constexpr std::size_t kNcclUniqueIdBytes = 128;

// The fabric check's bounds: round 1..4, a pair index, figures as non-negative integers,
// keys of at most kMaxFabricKey bytes.
/// Three pair rounds and the all-nodes round.
inline constexpr int kMaxFabricRound = 4;
/// The largest pair index.
inline constexpr int kMaxFabricPair = 1 << 20;
/// Longest pair key of `fabric-listen` and `fabric-connect`, in bytes.
inline constexpr std::size_t kMaxFabricKey = 32;
/// Longest error text a fabric-result carries into the journal and the table.
inline constexpr std::size_t kMaxFabricError = 512;
/// 10 Tbit/s: beyond any link; a larger figure is garbage.
inline constexpr std::int64_t kMaxFabricKbps = 10'000'000'000;
/// 1000 s: beyond any link.
inline constexpr std::int64_t kMaxFabricLatencyNs = 1'000'000'000'000;
/// 10 TB/s: beyond any bus.
inline constexpr std::int64_t kMaxFabricBusMBps = 10'000'000;
/// GPUs in one pair's all-reduce: two nodes' worth, with room.
inline constexpr int kMaxFabricNcclRanks = 1024;

/// The NCCL engine's part of a fabric pair: an all-reduce over `ranks` GPUs, both nodes'
/// together, this node's first GPU being rank `first_rank` (the listener's are 0...).
/// `unique_id` is the listener's ncclUniqueId (kNcclUniqueIdBytes), which only the connector
/// gets; the listener makes it. On the wire by NcclFields.
struct FabricNccl {
  int ranks = 0;
  int first_rank = 0;
  std::string unique_id{};
  bool operator==(const FabricNccl&) const = default;
};

/// `fabric-listening`: this node listens for its partner in pair `pair` of fabric round
/// `round` at `address`:`port`; an empty address means the one it reaches the coordinator
/// from. `nccl_id`: the ncclUniqueId its NCCL engine waits on, when the pair runs NCCL.
struct FabricListening {
  static constexpr char kType[] = "fabric-listening";
  int round = 1;
  int pair = 0;
  std::string address;
  int port = 0;
  std::string nccl_id{};
  bool operator==(const FabricListening&) const = default;
  friend void fields(auto& v, Like<FabricListening> auto& m) {
    v("round", m.round, Range{1, kMaxFabricRound});
    v("pair", m.pair, Range{0, kMaxFabricPair});
    v("address", m.address, NumericAddress{.empty_ok = true});
    v("port", m.port, Range{1, 65535});
    v("ncclId", m.nccl_id, field::present_if(!m.nccl_id.empty()), base64,
      ExactBytes{kNcclUniqueIdBytes});
  }
};

/// `fabric-result`: what the connecting end of a fabric pair measured, or why an end could
/// not measure (`error` non-empty, figures 0). Figures are integers on the wire: kbit/s and
/// nanoseconds.
struct FabricResult {
  static constexpr char kType[] = "fabric-result";
  int round = 1;
  int pair = 0;
  std::string error;
  std::int64_t out_kbps = 0;  ///< connector to listener
  std::int64_t in_kbps = 0;   ///< listener to connector
  std::int64_t latency_ns = 0;
  /// The NCCL engine's bus bandwidth in MB/s (10^6 bytes/s), when the pair ran it.
  std::optional<std::int64_t> bus_mbps = std::nullopt;
  bool operator==(const FabricResult&) const = default;
  friend void fields(auto& v, Like<FabricResult> auto& m) {
    v("round", m.round, Range{1, kMaxFabricRound});
    v("pair", m.pair, Range{0, kMaxFabricPair});
    v("error", m.error);
    v("outKbps", m.out_kbps, UpTo{kMaxFabricKbps});
    v("inKbps", m.in_kbps, UpTo{kMaxFabricKbps});
    v("latencyNs", m.latency_ns, UpTo{kMaxFabricLatencyNs});
    v("busMBps", m.bus_mbps, UpTo{kMaxFabricBusMBps});  // std::optional: absent when unset
    v.check("error", [&] { return longer_than(m.error, kMaxFabricError); });
  }
};

/// What a node launcher sends its coordinator.
using NodeToCoordinator = std::variant<Join, Checks, Exited, Stopped, Hang, NodeHeartbeat, Failure,
                                       Forensics, ExecOutput, ExecExit, Log, LogEnd, Cancel,
                                       NodeFailed, FabricListening, FabricResult, Checkpointed>;

}  // namespace pai::net
