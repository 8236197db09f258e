// The coordinator protocol's messages between a coordinator and its control clients,
// `pai-launch status|stop|start|cancel|kill|checkpoint-now|run|logs|rsh` (docs/protocol.md,
// "Control client
// -> coordinator" and its answers). Each struct lists its wire fields once, in a table beside
// its members (libpai/fields.h, options in wire_fields.h). Included through protocol.h.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "launcher/net/node_messages.h"
#include "launcher/net/wire_fields.h"
#include "libpai/drill_fault.h"

namespace pai::net {

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

/// `checkpoint-now` {}: ask every running rank to checkpoint at its next step (the SDK's
/// should_checkpoint answers True once), answered with OkReply.
struct CheckpointNowRequest {
  static constexpr char kType[] = "checkpoint-now";
  bool operator==(const CheckpointNowRequest&) const = default;
};

/// `inject`: a drill's fault into local rank `rank` of the instance named "role-index" (or
/// its node's launcher, for node-loss), undone after `seconds` when bounded; answered with
/// OkReply once sent to the node, or ErrorReply.
struct InjectRequest {
  static constexpr char kType[] = "inject";
  std::string instance;
  int rank = 0;
  DrillFault fault = DrillFault::RankKill;
  int seconds = 0;
  bool operator==(const InjectRequest&) const = default;
  friend void fields(auto& v, Like<InjectRequest> auto& m) {
    v("instance", m.instance);
    v("rank", m.rank, Range{0, kAnyInstance});
    v("fault", m.fault);
    v("seconds", m.seconds, Range{0, kMaxFaultSeconds});
  }
};

/// `run`: run `argv` on every joined launcher.
struct RunRequest {
  static constexpr char kType[] = "run";
  std::vector<std::string> argv;
  bool operator==(const RunRequest&) const = default;
  friend void fields(auto& v, Like<RunRequest> auto& m) { v("argv", m.argv); }
};

/// `claim`: which node of the job a launcher is, for one that cannot tell (`pai-launch
/// torchrun` without --node-rank, as torchrun's c10d rendezvous gives node ranks): answered
/// with OkReply whose text is the node's name (the same node again for the same `identity`),
/// or ErrorReply when every node has a launcher or a claim. The claim holds while its
/// connection stays open.
struct ClaimRequest {
  static constexpr char kType[] = "claim";
  std::string identity;  ///< the asking launcher, unique per process ("host:pid:nonce")
  bool operator==(const ClaimRequest&) const = default;
  friend void fields(auto& v, Like<ClaimRequest> auto& m) { v("identity", m.identity); }
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
using ControlRequest = std::variant<StatusRequest, PauseRequest, ResumeRequest, CancelRequest,
                                    KillRequest, RunRequest, RshRequest, RshStdin, LogsRequest,
                                    ClaimRequest, CheckpointNowRequest, InjectRequest, Heartbeat>;

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
  /// Once finished: how the job ended ("succeeded", "failed", "cancelled"), its exit code and
  /// the coordinator's reason.
  std::optional<std::string> outcome = std::nullopt;
  std::optional<int> exit_code = std::nullopt;
  std::optional<std::string> reason = std::nullopt;
  /// The ETTR so far in hundredths of a percent (docs/goodput.md, "While the job runs"), and
  /// the launchers' journals it counts; absent until the coordinator's launcher read them.
  std::optional<int> ettr_basis_points = std::nullopt;
  std::optional<int> goodput_journals = std::nullopt;
  bool operator==(const StatusReply&) const = default;
  friend void fields(auto& v, Like<StatusReply> auto& m) {
    v("nodes", m.nodes, NamedItems{});
    v("job", m.job);
    v("phase", m.phase);
    v("outcome", m.outcome);  // std::optional: absent when unset
    v("exitCode", m.exit_code);
    v("reason", m.reason);
    v("ettrBasisPoints", m.ettr_basis_points, Range{0, 10000});
    v("goodputJournals", m.goodput_journals, Range{0, kIntMax});
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

}  // namespace pai::net
