// The messages of the coordinator protocol (docs/protocol.md) as types: one struct per message
// kind and direction, one std::variant per direction, and their conversion to and from the
// JSON bodies of sealed frames (protocol.cpp writes, protocol_parse.cpp reads: the only
// places that know the field names).
// Senders build a struct and convert it once; receivers parse a body into their direction's
// variant and dispatch with std::visit. Fields hold decoded values: `data` members carry raw
// bytes (base64 is the conversion's business), instance and rank numbers are ints.
//
// Every struct has `kType`, its "type" string, and compares equal member by member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "launcher/net/frame.h"

namespace pai::net {

/// Which output stream of a remote command bytes come from ("stdout" or "stderr").
enum class Stream { Stdout, Stderr };

/// "stdout" or "stderr".
const char* to_string(Stream stream);

/// `heartbeat` {}: the coordinator's to every launcher each interval; control clients may
/// send it too (ignored) and skip any they get.
struct Heartbeat {
  static constexpr char kType[] = "heartbeat";
  bool operator==(const Heartbeat&) const = default;
};

/// `log` {"rank", "instance", "data"}: output of one rank, from its launcher and relayed as
/// is to the control clients that asked for it.
struct Log {
  static constexpr char kType[] = "log";
  int rank = 0;      ///< global rank
  int instance = 0;  ///< global instance number of the rank
  std::string data;  ///< raw bytes (base64 on the wire)
  bool operator==(const Log&) const = default;
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
};

/// `checks`: the results of a `run-checks` request.
struct Checks {
  static constexpr char kType[] = "checks";
  std::string checks = "[]";  ///< JSON array text of checks::to_json; compact once parsed
  bool operator==(const Checks&) const = default;
};

/// How a process ended: exit code, or the signal that killed it (0: none).
struct ProcessStatus {
  int code = 0;
  int signal = 0;
  bool operator==(const ProcessStatus&) const = default;
};

/// The launcher's failure classification of an exit.
struct ExitClassification {
  bool retryable = false;
  std::string reason;
  std::string matched_line;  ///< "matchedLine" on the wire
  std::string signature;
  bool operator==(const ExitClassification&) const = default;
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
};

/// `stopped`: the last process of the instance is gone.
struct Stopped {
  static constexpr char kType[] = "stopped";
  int instance = 0;
  bool operator==(const Stopped&) const = default;
};

/// `hang`: ranks of the instance stuck (exiting: past exitInterval) for `seconds`.
struct Hang {
  static constexpr char kType[] = "hang";
  int instance = 0;
  bool exiting = false;
  std::int64_t seconds = 0;  ///< >= 0
  std::string reason;        ///< the launcher's words; optional on the wire, always sent
  bool operator==(const Hang&) const = default;
};

/// What the kernel counted for one running rank (its cgroup: the rank and all its children).
struct RankUsage {
  std::int64_t rank = 0;                ///< global rank, >= 0
  std::int64_t pid = 0;                 ///< the rank's process, > 0
  std::int64_t cpu_ms = 0;              ///< CPU time, user and system, >= 0
  std::int64_t memory_bytes = -1;       ///< memory in use now; -1: unknown
  std::int64_t memory_peak_bytes = -1;  ///< the most it used; -1: unknown
  bool operator==(const RankUsage&) const = default;
};

/// One running rank's telemetry ring summarized over the window since the launcher's previous
/// heartbeat (design §12). Collective figures count the world group (group 0) only.
struct RankTelemetry {
  std::int64_t rank = 0;          ///< global rank, >= 0
  std::int64_t step = -1;         ///< the last step any record named; -1: none yet
  std::int64_t steps = 0;         ///< timed steps (begin and end seen) ended in the window, >= 0
  std::int64_t step_us = 0;       ///< their durations, summed, >= 0
  std::int64_t window_us = 0;     ///< the window's length, >= 0
  std::int64_t comm_us = 0;       ///< time of the window with a collective open, 0..window_us
  std::int64_t entered = 0;       ///< highest collective seq entered, >= 0
  std::int64_t exited = 0;        ///< largest n with 1..n all exited, 0..entered
  std::int64_t open_ms = -1;      ///< how long collective exited + 1 has been open; -1: none
  int op = 0;                     ///< its op (pai_telemetry_op), 0..255
  std::int64_t quiet_ms = -1;     ///< since the rank's last record; -1: none yet
  std::int64_t lost = 0;          ///< records unaccounted for since the rank started, >= 0
  std::int64_t tcp_rtt_us = -1;   ///< median RTT of its processes' TCP connections; -1: none
  std::int64_t tcp_retrans = -1;  ///< their retransmitted segments, summed; -1: none
  /// "tcpSlowPeers" on the wire, optional: numeric addresses its connections are much slower
  /// to than to its other peers, at most kMaxTcpSlowPeers
  std::vector<std::string> tcp_slow_peers = {};
  /// "tcpStalledPeers" on the wire, optional: numeric addresses of its connections waiting out
  /// a retransmission timeout, at most kMaxTcpSlowPeers
  std::vector<std::string> tcp_stalled_peers = {};
  bool operator==(const RankTelemetry&) const = default;
};

/// Most entries of a RankTelemetry's tcpSlowPeers.
inline constexpr std::size_t kMaxTcpSlowPeers = 4;

/// One GPU of a node as NVML sampled it while the node's ranks ran (issue 18).
struct GpuSample {
  std::int64_t index = 0;                ///< NVML's index, 0..kMaxNodeGpus - 1
  int utilization = -1;                  ///< percent of the time a kernel ran, 0..100; -1: unknown
  std::int64_t memory_used_bytes = -1;   ///< "memoryUsedBytes"; -1: unknown
  std::int64_t memory_total_bytes = -1;  ///< "memoryTotalBytes"; -1: unknown; >= used
  bool operator==(const GpuSample&) const = default;
};

/// Most GPUs one node reports (entries of `gpus`, and their indexes' bound).
inline constexpr std::size_t kMaxNodeGpus = 64;

/// One running instance in a launcher's `heartbeat`.
struct HeartbeatInstance {
  int instance = 0;
  std::int64_t idle_ms = 0;        ///< since its last output or progress report, >= 0
  std::int64_t hang_interval = 0;  ///< seconds; <= 0: it never hangs
  std::int64_t step = 0;           ///< the latest progress step
  std::vector<RankUsage> ranks;    ///< "ranks" on the wire, optional; empty without cgroups
  /// "telemetry" on the wire, optional: the ranks that write a telemetry ring
  std::vector<RankTelemetry> telemetry;
  bool operator==(const HeartbeatInstance&) const = default;
};

/// `heartbeat` from a launcher: every interval, with its running instances.
struct NodeHeartbeat {
  static constexpr char kType[] = "heartbeat";
  std::vector<HeartbeatInstance> instances;
  /// "gpus" on the wire, optional: the node's GPUs when they were sampled since the previous
  /// heartbeat (every few seconds while its ranks run, where NVML is present); distinct indexes
  std::vector<GpuSample> gpus = {};  // `= {}`: initializers from before it may leave it out
  bool operator==(const NodeHeartbeat&) const = default;
};

/// `failure`: the root-cause summary (log tail) of a failed rank.
struct Failure {
  static constexpr char kType[] = "failure";
  int instance = 0;
  int rank = 0;  ///< global rank
  std::string summary;
  bool operator==(const Failure&) const = default;
};

/// One rank's stacks in `forensics`.
struct RankStacks {
  std::int64_t rank = 0;  ///< global rank, >= 0
  std::string place;      ///< "collective", "outside" or "unknown"
  std::string frame;      ///< the frame that shows it; at most kMaxStackFrame bytes, may be ""
  bool operator==(const RankStacks&) const = default;
};

/// Longest RankStacks::frame a receiver accepts.
inline constexpr std::size_t kMaxStackFrame = 1024;

/// `forensics`: the hang forensics of the sender's instance in attempt `attempt` were
/// collected (its stacks are in `folder` on that node); where each rank's stack stood.
struct Forensics {
  static constexpr char kType[] = "forensics";
  int instance = 0;
  int attempt = 0;
  std::string folder;
  std::vector<RankStacks> ranks;
  bool operator==(const Forensics&) const = default;
};

/// `exec-output` from a launcher: output of the `exec` with `id`.
struct ExecOutput {
  static constexpr char kType[] = "exec-output";
  std::int64_t id = 0;
  Stream stream = Stream::Stdout;
  std::string data;  ///< raw bytes (base64 on the wire)
  bool operator==(const ExecOutput&) const = default;
};

/// `exec-exit` from a launcher: the `exec` with `id` ended with `code`.
struct ExecExit {
  static constexpr char kType[] = "exec-exit";
  std::int64_t id = 0;
  int code = 0;
  bool operator==(const ExecExit&) const = default;
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
};

/// Bytes of an ncclUniqueId.
inline constexpr std::size_t kNcclUniqueIdBytes = 128;

/// The NCCL engine's part of a fabric pair: an all-reduce over `ranks` GPUs, both nodes'
/// together, this node's first GPU being rank `first_rank` (the listener's are 0...).
/// `unique_id` is the listener's ncclUniqueId (kNcclUniqueIdBytes), which only the connector
/// gets; the listener makes it.
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
};

/// One entry of `assign`'s hosts: instance `instance` runs on this host, not the plan's.
struct HostChange {
  std::size_t instance = 0;
  std::string name;
  std::string address;
  int slots = 0;
  bool operator==(const HostChange&) const = default;
};

/// `assign`: the node runs `instance`; `hosts` are the changes against the plan's placement.
struct Assign {
  static constexpr char kType[] = "assign";
  int instance = 0;
  std::vector<HostChange> hosts;
  bool operator==(const Assign&) const = default;
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
};

/// `start`: start the instance's processes (attempt = PAI_RESTART_COUNT).
struct Start {
  static constexpr char kType[] = "start";
  int instance = 0;
  int attempt = 0;
  bool operator==(const Start&) const = default;
};

/// `stop`: stop the instance (signal, grace period, SIGKILL).
struct Stop {
  static constexpr char kType[] = "stop";
  int instance = 0;
  int signal = 0;
  bool dump_stacks = false;  ///< "dumpStacks" on the wire
  std::string reason;
  bool operator==(const Stop&) const = default;
};

/// `kill`: SIGKILL the instance's processes as a failure.
struct Kill {
  static constexpr char kType[] = "kill";
  int instance = 0;
  bool operator==(const Kill&) const = default;
};

/// `finish`: the job is over for this node; exit with `exit_code`.
struct Finish {
  static constexpr char kType[] = "finish";
  int exit_code = 0;  ///< "exitCode" on the wire
  std::string reason;
  bool cancelled = false;  ///< the job was cancelled; on the wire only when true
  bool operator==(const Finish&) const = default;
};

/// `exec`: run `argv` on the node under `id`.
struct Exec {
  static constexpr char kType[] = "exec";
  std::int64_t id = 0;
  std::vector<std::string> argv;
  bool takes_stdin = false;  ///< "stdin" on the wire: exec-stdin feeds it (else /dev/null)
  bool operator==(const Exec&) const = default;
};

/// `exec-stdin` to a launcher: input of the `exec` with `id`.
struct ExecStdin {
  static constexpr char kType[] = "exec-stdin";
  std::int64_t id = 0;
  std::string data;  ///< raw bytes (base64 on the wire)
  bool eof = false;
  bool operator==(const ExecStdin&) const = default;
};

/// `exec-kill`: kill the process group of the `exec` with `id`.
struct ExecKill {
  static constexpr char kType[] = "exec-kill";
  std::int64_t id = 0;
  bool operator==(const ExecKill&) const = default;
};

/// `subscribe-logs`: send the last `lines` lines (-1: all) within the last `tail` bytes of
/// rank `rank`'s log (-1: every rank of the node), starting at a line boundary, `log-end`,
/// then live output.
struct SubscribeLogs {
  static constexpr char kType[] = "subscribe-logs";
  int rank = -1;
  std::int64_t tail = 0;
  int lines = -1;  ///< optional on the wire ("lines" absent: -1)
  bool operator==(const SubscribeLogs&) const = default;
};

/// `unsubscribe-logs`: stop sending `log`.
struct UnsubscribeLogs {
  static constexpr char kType[] = "unsubscribe-logs";
  bool operator==(const UnsubscribeLogs&) const = default;
};

/// Longest pair key of `fabric-listen` and `fabric-connect`, in bytes.
inline constexpr std::size_t kMaxFabricKey = 32;

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
};

/// `run`: run `argv` on every joined launcher.
struct RunRequest {
  static constexpr char kType[] = "run";
  std::vector<std::string> argv;
  bool operator==(const RunRequest&) const = default;
};

/// `rsh`: run `argv` on node `node` with stdin from the client.
struct RshRequest {
  static constexpr char kType[] = "rsh";
  std::string node;
  std::vector<std::string> argv;
  bool operator==(const RshRequest&) const = default;
};

/// `exec-stdin` from an rsh client: input of its remote command.
struct RshStdin {
  static constexpr char kType[] = "exec-stdin";
  std::string data;  ///< raw bytes (base64 on the wire)
  bool eof = false;
  bool operator==(const RshStdin&) const = default;
};

/// `logs`: the tail of rank `rank`'s log (-1: every rank), then live output with `follow`.
struct LogsRequest {
  static constexpr char kType[] = "logs";
  int rank = -1;
  bool follow = false;
  std::int64_t tail = 0;  ///< bytes looked back in, >= 0
  int lines = -1;         ///< lines of each tail, -1: all; optional on the wire (absent: -1)
  bool operator==(const LogsRequest&) const = default;
};

/// What a control client (`pai-launch status|stop|start|cancel|kill|run|logs|rsh`) asks.
using ControlRequest =
    std::variant<StatusRequest, PauseRequest, ResumeRequest, CancelRequest, KillRequest,
                 RunRequest, RshRequest, RshStdin, LogsRequest, Heartbeat>;

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
  std::string last_event;  ///< "lastEvent" on the wire; may be ""
  std::vector<RankUsage> usage;  ///< of its running ranks, from its latest heartbeat; optional
  /// Its instance's current attempt, or the next one while it waits to start; -1 (absent on
  /// the wire) before the first start
  int attempt = -1;
  /// "elapsedMs" on the wire: how long the running attempt has run; -1 (absent) otherwise
  std::int64_t elapsed_ms = -1;
  /// The running ranks' telemetry from the latest heartbeat (steps, step rate); optional
  std::vector<RankTelemetry> telemetry;
  /// The node's GPUs as last sampled while its ranks run; optional (a rank's GPU is the one
  /// whose index is its local rank)
  std::vector<GpuSample> gpus = {};  // `= {}`: initializers from before it may leave it out
  bool operator==(const NodeStatus&) const = default;
};

/// `status` reply: the job's phase and every node of the plan.
struct StatusReply {
  static constexpr char kType[] = "status";
  std::string job;
  std::string phase;  ///< "rendezvous", "running", "paused" or "finished"
  std::vector<NodeStatus> nodes;
  bool operator==(const StatusReply&) const = default;
};

/// `ok`: the request was carried out.
struct OkReply {
  static constexpr char kType[] = "ok";
  std::string text;
  bool operator==(const OkReply&) const = default;
};

/// `error`: the request was refused; the client prints `text` and fails.
struct ErrorReply {
  static constexpr char kType[] = "error";
  std::string text;
  bool operator==(const ErrorReply&) const = default;
};

/// `exec-output` to a client: output of its command on node `node`.
struct NodeExecOutput {
  static constexpr char kType[] = "exec-output";
  std::string node;
  Stream stream = Stream::Stdout;
  std::string data;  ///< raw bytes (base64 on the wire)
  bool operator==(const NodeExecOutput&) const = default;
};

/// `exec-exit` to a client: its command on node `node` ended (255: the node was lost).
struct NodeExecExit {
  static constexpr char kType[] = "exec-exit";
  std::string node;
  int code = 0;
  bool operator==(const NodeExecExit&) const = default;
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
