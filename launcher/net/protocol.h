// The messages of the coordinator protocol (docs/protocol.md) as types: one struct per message
// kind and direction, one std::variant per direction, and their conversion to and from the
// JSON bodies of sealed frames.
// Each struct lists its wire fields once, in a table beside its members (libpai/fields.h):
// the JSON name, the bounds and the encoding of each, in the order receivers check them.
// protocol.cpp writes by the tables, protocol_parse.cpp reads by them; neither spells a field.
// Senders build a struct and convert it once; receivers parse a body into their direction's
// variant and dispatch with std::visit. Fields hold decoded values: `data` members carry raw
// bytes (base64 is the conversion's business), instance and rank numbers are ints.
//
// Every struct has `kType`, its "type" string, and compares equal member by member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "launcher/net/frame.h"
#include "libpai/enum_names.h"
#include "libpai/fields.h"

namespace pai::net {

/// Which output stream of a remote command bytes come from ("stdout" or "stderr").
enum class Stream { Stdout, Stderr };

/// "stdout" or "stderr".
const char* to_string(Stream stream);

}  // namespace pai::net

namespace pai {
/// Spelling of net::Stream on the wire.
template <>
struct EnumNames<net::Stream> {
  static constexpr std::array<EnumName<net::Stream>, 2> table{
      {{net::Stream::Stdout, "stdout"}, {net::Stream::Stderr, "stderr"}}};
};
}  // namespace pai

namespace pai::net {

// ---- Field options of the tables (libpai/fields.h). Plain values: protocol_parse.cpp checks
// them and words the errors ("<type>: <field>: <what>"); protocol.cpp encodes by them. ----

inline constexpr int kIntMax = std::numeric_limits<int>::max();
/// The bound of instance and rank numbers where no plan bounds them (start, stop, kill, and
/// what a control client prints).
inline constexpr int kAnyInstance = 1 << 30;
/// The largest attempt number a message may carry.
inline constexpr int kMaxAttempt = 1 << 20;
/// The largest exit code a control client accepts from `exec-exit`.
inline constexpr int kMaxClientCode = 1 << 20;

/// An int in [min, max]: "expected an integer in [min, max], got N". An int member without
/// a range (or InstanceNumber, RankNumber) is in [INT_MIN, INT_MAX].
struct Range {
  int min;
  int max;
};
/// An instance number of the receiver's plan: [0, instances - 1] (kAnyInstance where the
/// receiver has no plan: a control client).
struct InstanceNumber {};
/// A global rank: [0, INT_MAX] (kAnyInstance for a control client).
struct RankNumber {};
/// An int64 >= 0: "expected a non-negative integer".
struct NonNegative {};
/// An int64 >= -1, -1 meaning none: "expected -1 or a non-negative integer".
struct NoneOrMore {};
/// An int64 in [0, max]: NonNegative, then "expected at most MAX".
struct UpTo {
  std::int64_t max;
};
/// A string of `min` to `max` bytes: "expected MIN to MAX bytes".
struct ByteLength {
  std::size_t min;
  std::size_t max;
};
/// A numeric IPv4 or IPv6 address, or "" where `empty_ok`.
struct NumericAddress {
  bool empty_ok = false;
};
/// A list of at most kMaxTcpSlowPeers numeric IPv4 or IPv6 addresses.
struct PeerAddresses {};
/// A plan seal ("hmac-sha256:" or "sha256:" and 64 lowercase hex digits, libpai/plan_seal.h):
/// it is quoted in the coordinator's refusal and journal, so only that form gets there.
struct SealForm {};
/// Raw bytes, base64 on the wire (canonical encodings only).
struct Base64 {};
inline constexpr Base64 base64{};
/// Exactly `size` bytes (of a Base64 member): "expected SIZE bytes, got N".
struct ExactBytes {
  std::size_t size;
};
/// JSON array text (compact once parsed), an array on the wire.
struct JsonArrayText {};
/// [first, last]: an array of exactly two integers ("expected [first, last]").
struct FirstLast {};
/// A list of at most `max` objects, checked before its items: "more than MAX <what>".
struct MaxItems {
  std::size_t max;
  const char* what;
};
/// The status reply's items: named "<type>: <key>[k]" (not "<type>.<key>[k]"), and one that
/// is not an object is "<type>: <key>[k]: expected an object".
struct NamedItems {};
/// `assign`'s hosts, read by parse_host_changes (one error for any malformed entry).
struct HostChanges {};
/// The NCCL engine's fields of fabric-listen and fabric-connect (FabricNccl), flat beside the
/// others: ncclRanks, ncclFirstRank and, for the connector (`with_id`), ncclId.
struct NcclFields {
  bool with_id;
};

/// "" when `value` is one of `words`, else the protocol's error text:
/// expected "a", "b" or "c", got "value".
std::string not_one_of(const std::string& value, std::initializer_list<const char*> words);
/// "" when `value` has at most `max` bytes, else "longer than MAX bytes".
std::string longer_than(const std::string& value, std::size_t max);

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
  bool operator==(const Join&) const = default;
  friend void fields(auto& v, Like<Join> auto& m) {
    v("node", m.node);
    v("checks", m.checks, JsonArrayText{});
    v("pid", m.pid);
    v("seal", m.seal, field::present_if(!m.seal.empty()), SealForm{});
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
  bool operator==(const NodeHeartbeat&) const = default;
  friend void fields(auto& v, Like<NodeHeartbeat> auto& m) {
    v("instances", m.instances);
    v("gpus", m.gpus, field::present_if(!m.gpus.empty()), MaxItems{kMaxNodeGpus, "GPUs"});
    v.check("gpus", [&] { return repeated_gpu(m.gpus); });
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
using NodeToCoordinator =
    std::variant<Join, Checks, Exited, Stopped, Hang, NodeHeartbeat, Failure, Forensics, ExecOutput,
                 ExecExit, Log, LogEnd, Cancel, FabricListening, FabricResult>;

// ---- Coordinator -> node launcher ----

/// `progress`: a rendezvous progress line.
struct Progress {
  static constexpr char kType[] = "progress";
  std::string text;
  bool operator==(const Progress&) const = default;
  friend void fields(auto& v, Like<Progress> auto& m) { v("text", m.text); }
};

/// One entry of `assign`'s hosts: instance `instance` runs on this host, not the plan's.
struct HostChange {
  std::size_t instance = 0;
  std::string name;
  std::string address;
  int slots = 0;
  bool operator==(const HostChange&) const = default;
  friend void fields(auto& v, Like<HostChange> auto& m) {
    v("instance", m.instance);
    v("name", m.name);
    v("address", m.address);
    v("slots", m.slots);
  }
};

/// `assign`: the node runs `instance`; `hosts` are the changes against the plan's placement.
struct Assign {
  static constexpr char kType[] = "assign";
  int instance = 0;
  std::vector<HostChange> hosts;
  bool operator==(const Assign&) const = default;
  friend void fields(auto& v, Like<Assign> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("hosts", m.hosts, HostChanges{});
  }
};

/// `standby`: a spare with no instance (yet).
struct Standby {
  static constexpr char kType[] = "standby";
  bool operator==(const Standby&) const = default;
};

/// `run-checks`: run the sanity checks again (attempt `attempt` of the round).
struct RunChecks {
  static constexpr char kType[] = "run-checks";
  int attempt = 0;
  bool operator==(const RunChecks&) const = default;
  friend void fields(auto& v, Like<RunChecks> auto& m) {
    v("attempt", m.attempt, Range{0, kMaxAttempt});
  }
};

/// `start`: start the instance's processes (attempt = PAI_RESTART_COUNT).
struct Start {
  static constexpr char kType[] = "start";
  int instance = 0;
  int attempt = 0;
  bool operator==(const Start&) const = default;
  friend void fields(auto& v, Like<Start> auto& m) {
    v("instance", m.instance, Range{0, kAnyInstance});
    v("attempt", m.attempt, Range{0, kMaxAttempt});
  }
};

/// `stop`: stop the instance (signal, grace period, SIGKILL).
struct Stop {
  static constexpr char kType[] = "stop";
  int instance = 0;
  int signal = 0;
  bool dump_stacks = false;
  std::string reason;
  bool operator==(const Stop&) const = default;
  friend void fields(auto& v, Like<Stop> auto& m) {
    v("instance", m.instance, Range{0, kAnyInstance});
    v("signal", m.signal, Range{1, 64});
    v("dumpStacks", m.dump_stacks);
    v("reason", m.reason);
  }
};

/// `kill`: SIGKILL the instance's processes as a failure.
struct Kill {
  static constexpr char kType[] = "kill";
  int instance = 0;
  bool operator==(const Kill&) const = default;
  friend void fields(auto& v, Like<Kill> auto& m) {
    v("instance", m.instance, Range{0, kAnyInstance});
  }
};

/// `finish`: the job is over for this node; exit with `exit_code`.
struct Finish {
  static constexpr char kType[] = "finish";
  int exit_code = 0;
  std::string reason;
  bool cancelled = false;  ///< the job was cancelled; on the wire only when true
  bool operator==(const Finish&) const = default;
  friend void fields(auto& v, Like<Finish> auto& m) {
    v("exitCode", m.exit_code, Range{0, 255});
    v("reason", m.reason);
    v("cancelled", m.cancelled, field::present_if(m.cancelled));
  }
};

/// `exec`: run `argv` on the node under `id`.
struct Exec {
  static constexpr char kType[] = "exec";
  std::int64_t id = 0;
  std::vector<std::string> argv;
  bool takes_stdin = false;  ///< exec-stdin feeds it (else /dev/null)
  bool operator==(const Exec&) const = default;
  friend void fields(auto& v, Like<Exec> auto& m) {
    v("id", m.id);
    v("argv", m.argv);
    v("stdin", m.takes_stdin, field::optional);
  }
};

/// `exec-stdin` to a launcher: input of the `exec` with `id`.
struct ExecStdin {
  static constexpr char kType[] = "exec-stdin";
  std::int64_t id = 0;
  std::string data;  ///< raw bytes
  bool eof = false;
  bool operator==(const ExecStdin&) const = default;
  friend void fields(auto& v, Like<ExecStdin> auto& m) {
    v("id", m.id);
    v("data", m.data, base64);
    v("eof", m.eof, field::optional);
  }
};

/// `exec-kill`: kill the process group of the `exec` with `id`.
struct ExecKill {
  static constexpr char kType[] = "exec-kill";
  std::int64_t id = 0;
  bool operator==(const ExecKill&) const = default;
  friend void fields(auto& v, Like<ExecKill> auto& m) { v("id", m.id); }
};

/// `subscribe-logs`: send the last `lines` lines (-1: all) within the last `tail` bytes of
/// rank `rank`'s log (-1: every rank of the node), starting at a line boundary, `log-end`,
/// then live output.
struct SubscribeLogs {
  static constexpr char kType[] = "subscribe-logs";
  int rank = -1;
  std::int64_t tail = 0;
  int lines = -1;  ///< absent on the wire for -1 (every line), as from peers older than it
  bool operator==(const SubscribeLogs&) const = default;
  friend void fields(auto& v, Like<SubscribeLogs> auto& m) {
    v("rank", m.rank, Range{-1, kAnyInstance});
    v("tail", m.tail);
    v("lines", m.lines, Range{0, kIntMax}, field::present_if(m.lines >= 0));
  }
};

/// `unsubscribe-logs`: stop sending `log`.
struct UnsubscribeLogs {
  static constexpr char kType[] = "unsubscribe-logs";
  bool operator==(const UnsubscribeLogs&) const = default;
};

/// `fabric-listen`: listen for the partner of fabric pair `pair` of round `round`, who will
/// greet with `key`; answer `fabric-listening` (or `fabric-result` with the error). The
/// measurement's settings are the plan's sanityCheck.fabric.
struct FabricListen {
  static constexpr char kType[] = "fabric-listen";
  int round = 1;
  int pair = 0;
  std::string key;
  /// Set when the pair also runs the NCCL engine (without unique_id: this end makes it).
  std::optional<FabricNccl> nccl = std::nullopt;
  bool operator==(const FabricListen&) const = default;
  friend void fields(auto& v, Like<FabricListen> auto& m) {
    v("round", m.round, Range{1, kMaxFabricRound});
    v("pair", m.pair, Range{0, kMaxFabricPair});
    v("key", m.key, ByteLength{1, kMaxFabricKey});
    v("ncclRanks", m.nccl, NcclFields{.with_id = false});
  }
};

/// `fabric-connect`: measure the link to the partner listening at `address`:`port` and
/// answer `fabric-result`.
struct FabricConnect {
  static constexpr char kType[] = "fabric-connect";
  int round = 1;
  int pair = 0;
  std::string key;
  std::string address;
  int port = 0;
  /// Set when the pair also runs the NCCL engine, with the listener's unique_id.
  std::optional<FabricNccl> nccl = std::nullopt;
  bool operator==(const FabricConnect&) const = default;
  friend void fields(auto& v, Like<FabricConnect> auto& m) {
    v("round", m.round, Range{1, kMaxFabricRound});
    v("pair", m.pair, Range{0, kMaxFabricPair});
    v("key", m.key, ByteLength{1, kMaxFabricKey});
    v("address", m.address, NumericAddress{.empty_ok = false});
    v("port", m.port, Range{1, 65535});
    v("ncclRanks", m.nccl, NcclFields{.with_id = true});
  }
};

/// What a coordinator sends a node launcher.
using CoordinatorToNode =
    std::variant<Progress, Assign, Standby, RunChecks, Start, Stop, Kill, Finish, Exec, ExecStdin,
                 ExecKill, SubscribeLogs, UnsubscribeLogs, Heartbeat, FabricListen, FabricConnect>;

// ---- Control client -> coordinator ----

/// `status` {}: the job's status, answered with StatusReply.
struct StatusRequest {
  static constexpr char kType[] = "status";
  bool operator==(const StatusRequest&) const = default;
};

/// `stop` {}: pause the whole job.
struct PauseRequest {
  static constexpr char kType[] = "stop";
  bool operator==(const PauseRequest&) const = default;
};

/// `start` {}: resume the paused job.
struct ResumeRequest {
  static constexpr char kType[] = "start";
  bool operator==(const ResumeRequest&) const = default;
};

/// `cancel` {}: end the whole job as cancelled (exit 143 everywhere).
struct CancelRequest {
  static constexpr char kType[] = "cancel";
  bool operator==(const CancelRequest&) const = default;
};

/// `kill`: SIGKILL the instance named "role-index" as a failure.
struct KillRequest {
  static constexpr char kType[] = "kill";
  std::string instance;
  bool operator==(const KillRequest&) const = default;
  friend void fields(auto& v, Like<KillRequest> auto& m) { v("instance", m.instance); }
};

/// `run`: run `argv` on every joined launcher.
struct RunRequest {
  static constexpr char kType[] = "run";
  std::vector<std::string> argv;
  bool operator==(const RunRequest&) const = default;
  friend void fields(auto& v, Like<RunRequest> auto& m) { v("argv", m.argv); }
};

/// `rsh`: run `argv` on node `node` with stdin from the client.
struct RshRequest {
  static constexpr char kType[] = "rsh";
  std::string node;
  std::vector<std::string> argv;
  bool operator==(const RshRequest&) const = default;
  friend void fields(auto& v, Like<RshRequest> auto& m) {
    v("node", m.node);
    v("argv", m.argv);
  }
};

/// `exec-stdin` from an rsh client: input of its remote command.
struct RshStdin {
  static constexpr char kType[] = "exec-stdin";
  std::string data;  ///< raw bytes
  bool eof = false;
  bool operator==(const RshStdin&) const = default;
  friend void fields(auto& v, Like<RshStdin> auto& m) {
    v("data", m.data, base64);
    v("eof", m.eof);
  }
};

/// `logs`: the tail of rank `rank`'s log (-1: every rank), then live output with `follow`.
struct LogsRequest {
  static constexpr char kType[] = "logs";
  int rank = -1;
  bool follow = false;
  std::int64_t tail = 0;  ///< bytes looked back in
  int lines = -1;         ///< lines of each tail, -1: all (absent on the wire)
  bool operator==(const LogsRequest&) const = default;
  friend void fields(auto& v, Like<LogsRequest> auto& m) {
    v("rank", m.rank, Range{-1, kIntMax});
    v("follow", m.follow);
    v("tail", m.tail, NonNegative{});
    v("lines", m.lines, Range{0, kIntMax}, field::present_if(m.lines >= 0));
  }
};

/// What a control client (`pai-launch status|stop|start|cancel|kill|run|logs|rsh`) asks.
using ControlRequest =
    std::variant<StatusRequest, PauseRequest, ResumeRequest, CancelRequest, KillRequest, RunRequest,
                 RshRequest, RshStdin, LogsRequest, Heartbeat>;

// ---- Coordinator -> control client ----

/// One node of the `status` reply.
struct NodeStatus {
  std::string node;
  std::string address;
  int instance = -1;  ///< global instance number, -1 for a node without one
  std::string role;   ///< "" without instance
  int index = -1;     ///< index in the role, -1 without instance
  /// [first, last] global rank; empty without instance
  std::vector<std::int64_t> ranks;
  std::string state;
  int restarts = 0;
  std::string last_event;        ///< may be ""
  std::vector<RankUsage> usage;  ///< of its running ranks, from its latest heartbeat; optional
  /// Its instance's current attempt, or the next one while it waits to start; -1 (absent on
  /// the wire) before the first start
  int attempt = -1;
  /// How long the running attempt has run; -1 (absent) otherwise
  std::int64_t elapsed_ms = -1;
  /// The running ranks' telemetry from the latest heartbeat (steps, step rate); optional
  std::vector<RankTelemetry> telemetry;
  /// The node's GPUs as last sampled while its ranks run; optional (a rank's GPU is the one
  /// whose index is its local rank)
  std::vector<GpuSample> gpus = {};  // `= {}`: initializers from before it may leave it out
  bool operator==(const NodeStatus&) const = default;
  friend void fields(auto& v, Like<NodeStatus> auto& m) {
    v("instance", m.instance, Range{-1, kIntMax});
    // A node without instance has no role, index or ranks to speak of.
    v.read_if(m.instance >= 0, [&](auto& with_instance) {
      with_instance("role", m.role);
      with_instance("index", m.index, Range{0, kIntMax});
      with_instance("ranks", m.ranks, FirstLast{});
    });
    v("lastEvent", m.last_event);
    v("node", m.node);
    v("address", m.address);
    v("state", m.state);
    v("restarts", m.restarts, Range{0, kIntMax});
    v("usage", m.usage, field::present_if(!m.usage.empty()));
    v("attempt", m.attempt, Range{0, kIntMax}, field::present_if(m.attempt >= 0));
    v("elapsedMs", m.elapsed_ms, NonNegative{}, field::present_if(m.elapsed_ms >= 0));
    v("telemetry", m.telemetry, field::present_if(!m.telemetry.empty()));
    v("gpus", m.gpus, field::present_if(!m.gpus.empty()), MaxItems{kMaxNodeGpus, "GPUs"});
    v.check("gpus", [&] { return repeated_gpu(m.gpus); });
  }
};

/// `status` reply: the job's phase and every node of the plan.
struct StatusReply {
  static constexpr char kType[] = "status";
  std::string job;
  std::string phase;  ///< "rendezvous", "running", "paused" or "finished"
  std::vector<NodeStatus> nodes;
  bool operator==(const StatusReply&) const = default;
  friend void fields(auto& v, Like<StatusReply> auto& m) {
    v("nodes", m.nodes, NamedItems{});
    v("job", m.job);
    v("phase", m.phase);
  }
};

/// `ok`: the request was carried out.
struct OkReply {
  static constexpr char kType[] = "ok";
  std::string text;
  bool operator==(const OkReply&) const = default;
  friend void fields(auto& v, Like<OkReply> auto& m) { v("text", m.text); }
};

/// `error`: the request was refused; the client prints `text` and fails.
struct ErrorReply {
  static constexpr char kType[] = "error";
  std::string text;
  bool operator==(const ErrorReply&) const = default;
  friend void fields(auto& v, Like<ErrorReply> auto& m) { v("text", m.text); }
};

/// `exec-output` to a client: output of its command on node `node`.
struct NodeExecOutput {
  static constexpr char kType[] = "exec-output";
  std::string node;
  Stream stream = Stream::Stdout;
  std::string data;  ///< raw bytes
  bool operator==(const NodeExecOutput&) const = default;
  friend void fields(auto& v, Like<NodeExecOutput> auto& m) {
    v("node", m.node);
    v("stream", m.stream);
    v("data", m.data, base64);
  }
};

/// `exec-exit` to a client: its command on node `node` ended (255: the node was lost).
struct NodeExecExit {
  static constexpr char kType[] = "exec-exit";
  std::string node;
  int code = 0;
  bool operator==(const NodeExecExit&) const = default;
  friend void fields(auto& v, Like<NodeExecExit> auto& m) {
    v("node", m.node);
    v("code", m.code, Range{-1, kMaxClientCode});
  }
};

/// `done` {}: a `run` or a `logs` without follow is complete.
struct Done {
  static constexpr char kType[] = "done";
  bool operator==(const Done&) const = default;
};

/// What a coordinator answers a control client.
using ControlReply = std::variant<StatusReply, OkReply, ErrorReply, NodeExecOutput, NodeExecExit,
                                  Log, Done, Heartbeat>;

// ---- Conversion ----

/// The JSON body of a message: any struct above, or a direction's variant. The result's
/// dump() is what goes on the wire. Defined (explicitly instantiated) in protocol.cpp for
/// exactly these types.
template <class Message>
nlohmann::json to_json(const Message& message);

/// Parses a node launcher's message. `instances` is the plan's instance count: instance
/// numbers must lie in [0, instances - 1]. Throws ProtocolError "<type>: <field>: <what>" for
/// a missing, mistyped or out-of-range field (nested objects are named "exited.status",
/// "heartbeat.instances[0]"), "<type>: type: not a launcher message" for another type.
NodeToCoordinator parse_node_to_coordinator(const nlohmann::json& body, int instances);

/// Parses a coordinator's message to a node launcher; `instances` as above (for `assign`).
/// Throws ProtocolError as above; an unknown type: "<type>: type: unknown message type".
CoordinatorToNode parse_coordinator_to_node(const nlohmann::json& body, int instances);

/// Parses a control client's request. Throws ProtocolError as above; an unknown type:
/// "<type>: type: not a control request".
ControlRequest parse_control_request(const nlohmann::json& body);

/// Parses a coordinator's answer to a control client. Throws ProtocolError as above (a node
/// of `status` is named "status: nodes[1]"); an unknown type: `unexpected message "<type>"`.
ControlReply parse_control_reply(const nlohmann::json& body);

/// The `hosts` of `assign`. Throws ProtocolError "assign: hosts: ..." unless every entry is an
/// object with a non-negative integer instance, string name and address and integer slots.
std::vector<HostChange> parse_host_changes(const nlohmann::json& hosts);

/// A visitor made of lambdas, for std::visit over the variants above.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
/// Deduces Overloaded's lambdas.
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

/// The "type" of a message struct.
template <class Message>
constexpr const char* type_of(const Message&) {
  return Message::kType;
}

/// The "type" of the message a direction's variant holds.
template <class... Messages>
constexpr const char* type_of(const std::variant<Messages...>& message) {
  return std::visit([](const auto& m) { return type_of(m); }, message);
}

/// Throws ProtocolError "<type>: <field>: <what>" for a message that is well-formed but wrong
/// where it arrived (e.g. a report for another node's instance).
template <class Message>
[[noreturn]] void fail(const Message& message, const char* field, const std::string& what) {
  throw field_error(type_of(message), field, what);
}

}  // namespace pai::net
