// The coordinator protocol's messages from a coordinator to its node launchers
// (docs/protocol.md, "Coordinator -> node launcher"). Each struct lists its wire fields once,
// in a table beside its members (libpai/fields.h, options in wire_fields.h). Included through
// protocol.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "launcher/net/node_messages.h"
#include "launcher/net/wire_fields.h"
#include "libpai/drill_fault.h"
#include "libpai/duration.h"

namespace pai::net {

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

/// Longest NicVerdictNotice::evidence a node accepts.
inline constexpr std::size_t kMaxNicEvidence = 1024;

/// `nic-verdict`: a critical NIC verdict about one of the node's own RDMA ports (design §13):
/// the node records it in its check history (sanityCheck.history), as a failed check.
struct NicVerdictNotice {
  static constexpr char kType[] = "nic-verdict";
  std::string port;      ///< "mlx5_0/1"
  std::string problem;   ///< "down", "flapping" or "errors"
  std::string evidence;  ///< the verdict's sentence
  bool operator==(const NicVerdictNotice&) const = default;
  friend void fields(auto& v, Like<NicVerdictNotice> auto& m) {
    v("port", m.port, ByteLength{1, 64});
    v("problem", m.problem);
    v.check("problem", [&] { return not_one_of(m.problem, {"down", "flapping", "errors"}); });
    v("evidence", m.evidence, ByteLength{0, kMaxNicEvidence});
  }
};

/// `checkpoint-advice`: what the ranks' `checkpoint-advice` control request answers from now
/// on (docs/checkpoint-planning.md, "While the job runs"): the checkpoint interval, refined
/// from the saves the coordinator measured, and the number of the latest `checkpoint-now`
/// request (0: none). Sent to the running instances' nodes when either changes, and before
/// each start once it differs from the plan's.
struct CheckpointAdvice {
  static constexpr char kType[] = "checkpoint-advice";
  std::int64_t interval_seconds = 0;  ///< 0: no plan (the ranks keep their own)
  std::int64_t request = 0;
  /// Optional on the wire (absent: false): the node sends `checkpointed` for each save its
  /// ranks begin under `request` (a swap's request)
  bool report = false;
  bool operator==(const CheckpointAdvice&) const = default;
  friend void fields(auto& v, Like<CheckpointAdvice> auto& m) {
    v("intervalSeconds", m.interval_seconds, UpTo{kMaxDurationSeconds});
    v("request", m.request, NonNegative{});
    v("report", m.report, field::present_if(m.report));
  }
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

/// `inject`: a drill's fault (`pai-launch drill`) into local rank `rank` of the instance, or,
/// for node-loss, into the node's launcher itself; a bounded fault is undone after `seconds`.
struct Inject {
  static constexpr char kType[] = "inject";
  int instance = 0;
  int rank = 0;
  DrillFault fault = DrillFault::RankKill;
  int seconds = 0;
  bool operator==(const Inject&) const = default;
  friend void fields(auto& v, Like<Inject> auto& m) {
    v("instance", m.instance, InstanceNumber{});
    v("rank", m.rank, Range{0, kAnyInstance});
    v("fault", m.fault);
    v("seconds", m.seconds, Range{0, kMaxFaultSeconds});
  }
};

/// What a coordinator sends a node launcher.
using CoordinatorToNode =
    std::variant<Progress, Assign, Standby, RunChecks, Start, Stop, Kill, Finish, Exec, ExecStdin,
                 ExecKill, SubscribeLogs, UnsubscribeLogs, Heartbeat, FabricListen, FabricConnect,
                 NicVerdictNotice, CheckpointAdvice, Inject>;

}  // namespace pai::net
