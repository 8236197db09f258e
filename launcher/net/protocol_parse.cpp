#include <arpa/inet.h>
#include <netinet/in.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <utility>

#include "launcher/net/message.h"
#include "launcher/net/protocol.h"
#include "libpai/plan_seal.h"

// Parsing (protocol.h's parse_*): one read() per message, strict through MessageReader; the
// variant's alternative is the one whose kType is the message's type. Writing is in
// protocol.cpp.

namespace pai::net {
namespace {

using Json = nlohmann::json;

constexpr int kIntMin = std::numeric_limits<int>::min();
constexpr int kIntMax = std::numeric_limits<int>::max();
// The bounds node launchers and control clients have always read these numbers with (the
// node checks an instance against its own; a client prints what it gets).
constexpr int kAnyInstance = 1 << 30;
constexpr int kMaxAttempt = 1 << 20;
constexpr int kMaxClientCode = 1 << 20;

// Bounds that differ between the directions sharing a message (`log`) or that only the
// reader's plan knows.
struct Limits {
  int max_instance = kAnyInstance;
  int max_rank = kIntMax;
};

template <class T>
struct Tag {};

// A nested object read as strictly as a message, its errors naming both:
// "exited.status: code: missing", "status: nodes[1]: ranks: expected [first, last]".
Json named(const Json& object, std::string type) {
  Json copy = object;
  copy["type"] = std::move(type);
  return copy;
}

Stream read_stream(const MessageReader& m) {
  const std::string stream = m.string("stream");
  if (stream == "stdout") return Stream::Stdout;
  if (stream == "stderr") return Stream::Stderr;
  m.fail("stream", "expected \"stdout\" or \"stderr\", got \"" + stream + "\"");
}

std::int64_t non_negative(const MessageReader& m, const char* key) {
  const std::int64_t value = m.int64(key);
  if (value < 0) m.fail(key, "expected a non-negative integer");
  return value;
}

int instance_of(const MessageReader& m, const Limits& limits) {
  return m.integer("instance", 0, limits.max_instance);
}

// ---- Reading: one read() per message, fields in the order receivers always read them ----

template <class T>
requires std::is_empty_v<T> T read(const MessageReader&, const Limits&, Tag<T>) { return {}; }

Log read(const MessageReader& m, const Limits& limits, Tag<Log>) {
  return Log{.rank = m.integer("rank", 0, limits.max_rank),
             .instance = instance_of(m, limits),
             .data = m.bytes("data")};
}

Join read(const MessageReader& m, const Limits&, Tag<Join>) {
  Join join{.node = m.string("node"),
            .checks = m.array("checks").dump(),
            .pid = m.int64("pid"),
            .seal = m.has("seal") ? m.string("seal") : ""};
  // It is quoted in the coordinator's refusal and journal: only a seal's form gets there.
  if (m.has("seal") && !is_seal(join.seal)) {
    m.fail("seal", "expected \"hmac-sha256:\" or \"sha256:\" and 64 lowercase hexadecimal digits");
  }
  return join;
}

Checks read(const MessageReader& m, const Limits&, Tag<Checks>) {
  return Checks{.checks = m.array("checks").dump()};
}

Exited read(const MessageReader& m, const Limits& limits, Tag<Exited>) {
  Exited e;
  e.instance = instance_of(m, limits);
  e.local_rank = m.integer("localRank", 0, kIntMax);
  const Json status_json = named(m.object("status"), m.type() + ".status");
  const MessageReader status(status_json);
  e.status.code = status.integer("code", 0, 255);
  e.status.signal = status.integer("signal", 0, 128);
  const Json class_json = named(m.object("classification"), m.type() + ".classification");
  const MessageReader classification(class_json);
  e.classification.retryable = classification.boolean("retryable");
  e.classification.reason = classification.string("reason");
  e.classification.matched_line = classification.string("matchedLine");
  e.classification.signature = classification.string("signature");
  e.stopping = m.boolean("stopping");
  return e;
}

Stopped read(const MessageReader& m, const Limits& limits, Tag<Stopped>) {
  return Stopped{.instance = instance_of(m, limits)};
}

Hang read(const MessageReader& m, const Limits& limits, Tag<Hang>) {
  return Hang{.instance = instance_of(m, limits),
              .exiting = m.boolean("exiting"),
              .seconds = non_negative(m, "seconds"),
              .reason = m.has("reason") ? m.string("reason") : std::string()};
}

// A figure for which -1 means none.
std::int64_t minus_one_or_more(const MessageReader& m, const char* key) {
  const std::int64_t value = m.int64(key);
  if (value < -1) m.fail(key, "expected -1 or a non-negative integer");
  return value;
}

// The optional array of objects `key` of a heartbeat entry or a status node, each read by
// `read_one` as strictly as a message: "<where>.<key>[k]: ...".
template <class ReadOne>
auto read_objects(const MessageReader& m, const char* key, const std::string& where,
                  ReadOne read_one) {
  std::vector<decltype(read_one(m))> objects;
  if (!m.has(key)) return objects;
  const Json& list = m.array(key);
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (!list[k].is_object()) m.fail(key, "expected an array of objects");
    const Json item = named(list[k], where + "." + key + "[" + std::to_string(k) + "]");
    objects.push_back(read_one(MessageReader(item)));
  }
  return objects;
}

RankUsage read_usage(const MessageReader& entry) {
  RankUsage u{.rank = non_negative(entry, "rank"),
              .pid = entry.int64("pid"),
              .cpu_ms = non_negative(entry, "cpuMs"),
              .memory_bytes = entry.int64("memoryBytes"),
              .memory_peak_bytes = entry.int64("memoryPeakBytes")};
  if (u.pid <= 0) entry.fail("pid", "expected a positive integer");
  if (u.memory_bytes < -1) entry.fail("memoryBytes", "expected -1 or a byte count");
  if (u.memory_peak_bytes < -1) entry.fail("memoryPeakBytes", "expected -1 or a byte count");
  return u;
}

bool numeric_address(const std::string& text) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

// The optional list of at most kMaxTcpSlowPeers numeric addresses at `key`.
std::vector<std::string> peer_addresses(const MessageReader& entry, const char* key) {
  if (!entry.has(key)) return {};
  std::vector<std::string> peers = entry.strings(key);
  if (peers.size() > kMaxTcpSlowPeers) {
    entry.fail(key, "expected at most " + std::to_string(kMaxTcpSlowPeers) + " addresses");
  }
  for (const std::string& peer : peers) {
    if (!numeric_address(peer)) entry.fail(key, "expected numeric IPv4 or IPv6 addresses");
  }
  return peers;
}

RankTelemetry read_telemetry(const MessageReader& entry) {
  RankTelemetry t{.rank = non_negative(entry, "rank"),
                  .step = minus_one_or_more(entry, "step"),
                  .steps = non_negative(entry, "steps"),
                  .step_us = non_negative(entry, "stepUs"),
                  .window_us = non_negative(entry, "windowUs"),
                  .comm_us = non_negative(entry, "commUs"),
                  .entered = non_negative(entry, "entered"),
                  .exited = non_negative(entry, "exited"),
                  .open_ms = minus_one_or_more(entry, "openMs"),
                  .op = entry.integer("op", 0, 255),
                  .quiet_ms = minus_one_or_more(entry, "quietMs"),
                  .lost = non_negative(entry, "lost"),
                  .tcp_rtt_us = minus_one_or_more(entry, "tcpRttUs"),
                  .tcp_retrans = minus_one_or_more(entry, "tcpRetrans")};
  if (t.comm_us > t.window_us) entry.fail("commUs", "expected at most windowUs");
  if (t.exited > t.entered) entry.fail("exited", "expected at most entered");
  t.tcp_slow_peers = peer_addresses(entry, "tcpSlowPeers");
  t.tcp_stalled_peers = peer_addresses(entry, "tcpStalledPeers");
  return t;
}

GpuSample read_gpu(const MessageReader& entry) {
  GpuSample g{.index = non_negative(entry, "index"),
              .utilization = entry.integer("utilization", -1, 100),
              .memory_used_bytes = minus_one_or_more(entry, "memoryUsedBytes"),
              .memory_total_bytes = minus_one_or_more(entry, "memoryTotalBytes")};
  if (g.index >= static_cast<std::int64_t>(kMaxNodeGpus)) {
    entry.fail("index", "expected an index below " + std::to_string(kMaxNodeGpus));
  }
  if (g.memory_used_bytes >= 0 && g.memory_total_bytes >= 0 &&
      g.memory_used_bytes > g.memory_total_bytes) {
    entry.fail("memoryUsedBytes", "expected at most memoryTotalBytes");
  }
  return g;
}

// The optional `gpus` of a heartbeat or a status node: at most kMaxNodeGpus, distinct indexes.
std::vector<GpuSample> read_gpus(const MessageReader& m, const std::string& where) {
  if (m.has("gpus") && m.array("gpus").size() > kMaxNodeGpus) {
    m.fail("gpus", "more than " + std::to_string(kMaxNodeGpus) + " GPUs");
  }
  std::vector<GpuSample> gpus = read_objects(m, "gpus", where, read_gpu);
  std::vector<bool> seen(kMaxNodeGpus, false);
  for (const GpuSample& g : gpus) {
    if (seen[static_cast<std::size_t>(g.index)]) {
      m.fail("gpus", "GPU " + std::to_string(g.index) + " listed twice");
    }
    seen[static_cast<std::size_t>(g.index)] = true;
  }
  return gpus;
}

NodeHeartbeat read(const MessageReader& m, const Limits& limits, Tag<NodeHeartbeat>) {
  const Json& list = m.array("instances");
  NodeHeartbeat heartbeat;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (!list[k].is_object()) m.fail("instances", "expected an array of objects");
    const std::string where = m.type() + ".instances[" + std::to_string(k) + "]";
    const Json item = named(list[k], where);
    const MessageReader entry(item);
    heartbeat.instances.push_back(
        HeartbeatInstance{.instance = instance_of(entry, limits),
                          .idle_ms = non_negative(entry, "idleMs"),
                          .hang_interval = entry.int64("hangInterval"),
                          .step = entry.int64("step"),
                          .ranks = read_objects(entry, "ranks", where, read_usage),
                          .telemetry = read_objects(entry, "telemetry", where, read_telemetry)});
  }
  heartbeat.gpus = read_gpus(m, m.type());
  return heartbeat;
}

Failure read(const MessageReader& m, const Limits& limits, Tag<Failure>) {
  return Failure{.instance = instance_of(m, limits),
                 .rank = m.integer("rank", 0, kIntMax),
                 .summary = m.string("summary")};
}

RankStacks read_stacks(const MessageReader& entry) {
  RankStacks r{.rank = non_negative(entry, "rank"),
               .place = entry.string("place"),
               .frame = entry.string("frame")};
  if (r.place != "collective" && r.place != "outside" && r.place != "unknown") {
    entry.fail("place",
               "expected \"collective\", \"outside\" or \"unknown\", got \"" + r.place + "\"");
  }
  if (r.frame.size() > kMaxStackFrame) {
    entry.fail("frame", "longer than " + std::to_string(kMaxStackFrame) + " bytes");
  }
  return r;
}

Forensics read(const MessageReader& m, const Limits& limits, Tag<Forensics>) {
  Forensics f{.instance = instance_of(m, limits),
              .attempt = m.integer("attempt", 0, kMaxAttempt),
              .folder = m.string("folder"),
              .ranks = {}};
  // Required, unlike a heartbeat's lists: a report of no rank is still a list.
  m.array("ranks");
  f.ranks = read_objects(m, "ranks", m.type(), read_stacks);
  return f;
}

ExecOutput read(const MessageReader& m, const Limits&, Tag<ExecOutput>) {
  return ExecOutput{.id = m.int64("id"), .stream = read_stream(m), .data = m.bytes("data")};
}

ExecExit read(const MessageReader& m, const Limits&, Tag<ExecExit>) {
  return ExecExit{.id = m.int64("id"), .code = m.integer("code", kIntMin, kIntMax)};
}

Progress read(const MessageReader& m, const Limits&, Tag<Progress>) {
  return Progress{.text = m.string("text")};
}

Assign read(const MessageReader& m, const Limits& limits, Tag<Assign>) {
  return Assign{.instance = instance_of(m, limits), .hosts = parse_host_changes(m.array("hosts"))};
}

RunChecks read(const MessageReader& m, const Limits&, Tag<RunChecks>) {
  return RunChecks{.attempt = m.integer("attempt", 0, kMaxAttempt)};
}

Start read(const MessageReader& m, const Limits&, Tag<Start>) {
  return Start{.instance = m.integer("instance", 0, kAnyInstance),
               .attempt = m.integer("attempt", 0, kMaxAttempt)};
}

Stop read(const MessageReader& m, const Limits&, Tag<Stop>) {
  return Stop{.instance = m.integer("instance", 0, kAnyInstance),
              .signal = m.integer("signal", 1, 64),
              .dump_stacks = m.boolean("dumpStacks"),
              .reason = m.string("reason")};
}

Kill read(const MessageReader& m, const Limits&, Tag<Kill>) {
  return Kill{.instance = m.integer("instance", 0, kAnyInstance)};
}

Finish read(const MessageReader& m, const Limits&, Tag<Finish>) {
  return Finish{.exit_code = m.integer("exitCode", 0, 255),
                .reason = m.string("reason"),
                .cancelled = m.has("cancelled") && m.boolean("cancelled")};
}

Cancel read(const MessageReader& m, const Limits&, Tag<Cancel>) {
  return Cancel{.signal = m.integer("signal", 1, 64)};
}

// ---- The fabric check's messages: round 1..4, a pair index, figures as non-negative
// integers, keys of at most kMaxFabricKey bytes ----

constexpr int kMaxFabricRound = 4;  // three pair rounds and the all-nodes round
constexpr int kMaxFabricPair = 1 << 20;
// Longest error text a fabric-result carries into the journal and the table.
constexpr std::size_t kMaxFabricError = 512;
// 10 Tbit/s and 1000 s: beyond any link; a larger figure is garbage.
constexpr std::int64_t kMaxFabricKbps = 10'000'000'000;
constexpr std::int64_t kMaxFabricLatencyNs = 1'000'000'000'000;

int fabric_round(const MessageReader& m) { return m.integer("round", 1, kMaxFabricRound); }
int fabric_pair(const MessageReader& m) { return m.integer("pair", 0, kMaxFabricPair); }

std::string fabric_key(const MessageReader& m) {
  std::string key = m.string("key");
  if (key.empty() || key.size() > kMaxFabricKey) {
    m.fail("key", "expected 1 to " + std::to_string(kMaxFabricKey) + " bytes");
  }
  return key;
}

// A numeric IPv4 or IPv6 address; "" where `empty_ok` (the sender's own address).
std::string fabric_address(const MessageReader& m, bool empty_ok) {
  std::string address = m.string("address");
  if (address.empty() && empty_ok) return address;
  if (!numeric_address(address)) m.fail("address", "expected a numeric IPv4 or IPv6 address");
  return address;
}

std::int64_t bounded(const MessageReader& m, const char* key, std::int64_t max) {
  const std::int64_t value = non_negative(m, key);
  if (value > max) m.fail(key, "expected at most " + std::to_string(max));
  return value;
}

// 10 TB/s: beyond any bus; a larger figure is garbage.
constexpr std::int64_t kMaxFabricBusMBps = 10'000'000;
// GPUs in one pair's all-reduce: two nodes' worth, with room.
constexpr int kMaxFabricNcclRanks = 1024;

// `ncclId`: an ncclUniqueId, exactly its size.
std::string nccl_id(const MessageReader& m) {
  std::string id = m.bytes("ncclId");
  if (id.size() != kNcclUniqueIdBytes) {
    m.fail("ncclId", "expected " + std::to_string(kNcclUniqueIdBytes) + " bytes, got " +
                         std::to_string(id.size()));
  }
  return id;
}

// The NCCL engine's fields of fabric-listen (`with_id` false) or fabric-connect: absent
// together, or ranks 2.., a first rank among them, and for the connector the id.
std::optional<FabricNccl> fabric_nccl(const MessageReader& m, bool with_id) {
  if (!m.has("ncclRanks")) {
    if (m.has("ncclFirstRank") || m.has("ncclId")) m.fail("ncclRanks", "missing");
    return std::nullopt;
  }
  FabricNccl nccl;
  nccl.ranks = m.integer("ncclRanks", 2, kMaxFabricNcclRanks);
  nccl.first_rank = m.integer("ncclFirstRank", 0, nccl.ranks - 1);
  if (with_id) {
    nccl.unique_id = nccl_id(m);
  } else if (m.has("ncclId")) {
    m.fail("ncclId", "the listening end makes the id");
  }
  return nccl;
}

FabricListening read(const MessageReader& m, const Limits&, Tag<FabricListening>) {
  return FabricListening{.round = fabric_round(m),
                         .pair = fabric_pair(m),
                         .address = fabric_address(m, true),
                         .port = m.integer("port", 1, 65535),
                         .nccl_id = m.has("ncclId") ? nccl_id(m) : std::string()};
}

FabricResult read(const MessageReader& m, const Limits&, Tag<FabricResult>) {
  FabricResult r{.round = fabric_round(m),
                 .pair = fabric_pair(m),
                 .error = m.string("error"),
                 .out_kbps = bounded(m, "outKbps", kMaxFabricKbps),
                 .in_kbps = bounded(m, "inKbps", kMaxFabricKbps),
                 .latency_ns = bounded(m, "latencyNs", kMaxFabricLatencyNs)};
  if (m.has("busMBps")) r.bus_mbps = bounded(m, "busMBps", kMaxFabricBusMBps);
  if (r.error.size() > kMaxFabricError) {
    m.fail("error", "longer than " + std::to_string(kMaxFabricError) + " bytes");
  }
  return r;
}

FabricListen read(const MessageReader& m, const Limits&, Tag<FabricListen>) {
  return FabricListen{.round = fabric_round(m),
                      .pair = fabric_pair(m),
                      .key = fabric_key(m),
                      .nccl = fabric_nccl(m, false)};
}

FabricConnect read(const MessageReader& m, const Limits&, Tag<FabricConnect>) {
  return FabricConnect{.round = fabric_round(m),
                       .pair = fabric_pair(m),
                       .key = fabric_key(m),
                       .address = fabric_address(m, false),
                       .port = m.integer("port", 1, 65535),
                       .nccl = fabric_nccl(m, true)};
}

Exec read(const MessageReader& m, const Limits&, Tag<Exec>) {
  return Exec{.id = m.int64("id"),
              .argv = m.strings("argv"),
              .takes_stdin = m.has("stdin") && m.boolean("stdin")};
}

ExecStdin read(const MessageReader& m, const Limits&, Tag<ExecStdin>) {
  return ExecStdin{
      .id = m.int64("id"), .data = m.bytes("data"), .eof = m.has("eof") && m.boolean("eof")};
}

ExecKill read(const MessageReader& m, const Limits&, Tag<ExecKill>) {
  return ExecKill{.id = m.int64("id")};
}

// `lines` of `logs` and `subscribe-logs`: optional (older peers send none), -1 when absent.
int tail_lines(const MessageReader& m) {
  return m.has("lines") ? m.integer("lines", 0, kIntMax) : -1;
}

SubscribeLogs read(const MessageReader& m, const Limits&, Tag<SubscribeLogs>) {
  return SubscribeLogs{.rank = m.integer("rank", -1, kAnyInstance),
                       .tail = m.int64("tail"),
                       .lines = tail_lines(m)};
}

KillRequest read(const MessageReader& m, const Limits&, Tag<KillRequest>) {
  return KillRequest{.instance = m.string("instance")};
}

RunRequest read(const MessageReader& m, const Limits&, Tag<RunRequest>) {
  return RunRequest{.argv = m.strings("argv")};
}

RshRequest read(const MessageReader& m, const Limits&, Tag<RshRequest>) {
  return RshRequest{.node = m.string("node"), .argv = m.strings("argv")};
}

RshStdin read(const MessageReader& m, const Limits&, Tag<RshStdin>) {
  return RshStdin{.data = m.bytes("data"), .eof = m.boolean("eof")};
}

LogsRequest read(const MessageReader& m, const Limits&, Tag<LogsRequest>) {
  return LogsRequest{.rank = m.integer("rank", -1, kIntMax),
                     .follow = m.boolean("follow"),
                     .tail = non_negative(m, "tail"),
                     .lines = tail_lines(m)};
}

NodeStatus read_node_status(const Json& item, std::size_t index) {
  const std::string name = "status: nodes[" + std::to_string(index) + "]";
  if (!item.is_object()) throw ProtocolError(name + ": expected an object");
  const Json entry = named(item, name);
  const MessageReader r(entry);
  NodeStatus node;
  node.instance = r.integer("instance", -1, kIntMax);
  // A node without instance has no role, index or ranks to speak of.
  if (node.instance >= 0) {
    node.role = r.string("role");
    node.index = r.integer("index", 0, kIntMax);
    const Json& span = r.array("ranks");
    if (span.size() != 2 || !span[0].is_number_integer() || !span[1].is_number_integer()) {
      r.fail("ranks", "expected [first, last]");
    }
    node.ranks = {span[0].get<std::int64_t>(), span[1].get<std::int64_t>()};
  }
  node.last_event = r.string("lastEvent");
  node.node = r.string("node");
  node.address = r.string("address");
  node.state = r.string("state");
  node.restarts = r.integer("restarts", 0, kIntMax);
  node.usage = read_objects(r, "usage", name, read_usage);
  if (r.has("attempt")) node.attempt = r.integer("attempt", 0, kIntMax);
  if (r.has("elapsedMs")) node.elapsed_ms = non_negative(r, "elapsedMs");
  node.telemetry = read_objects(r, "telemetry", name, read_telemetry);
  node.gpus = read_gpus(r, name);
  return node;
}

StatusReply read(const MessageReader& m, const Limits&, Tag<StatusReply>) {
  StatusReply status;
  const Json& nodes = m.array("nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    status.nodes.push_back(read_node_status(nodes[i], i));
  }
  status.job = m.string("job");
  status.phase = m.string("phase");
  return status;
}

OkReply read(const MessageReader& m, const Limits&, Tag<OkReply>) {
  return OkReply{.text = m.string("text")};
}

ErrorReply read(const MessageReader& m, const Limits&, Tag<ErrorReply>) {
  return ErrorReply{.text = m.string("text")};
}

NodeExecOutput read(const MessageReader& m, const Limits&, Tag<NodeExecOutput>) {
  return NodeExecOutput{
      .node = m.string("node"), .stream = read_stream(m), .data = m.bytes("data")};
}

NodeExecExit read(const MessageReader& m, const Limits&, Tag<NodeExecExit>) {
  return NodeExecExit{.node = m.string("node"), .code = m.integer("code", -1, kMaxClientCode)};
}

// The alternative of `Variant` whose kType is the message's type, read field by field;
// `unknown` throws for a type the direction does not have.
template <class Variant, class Unknown, std::size_t... I>
Variant parse(const Json& body, const Limits& limits, Unknown unknown, std::index_sequence<I...>) {
  const MessageReader m(body);
  std::optional<Variant> out;
  auto read_if_named = [&]<class T>(Tag<T> tag) {
    if (!out && m.type() == T::kType) out.emplace(read(m, limits, tag));
  };
  (read_if_named(Tag<std::variant_alternative_t<I, Variant>>{}), ...);
  if (!out) unknown(m);
  return std::move(*out);
}

template <class Variant, class Unknown>
Variant parse(const Json& body, const Limits& limits, Unknown unknown) {
  return parse<Variant>(body, limits, unknown,
                        std::make_index_sequence<std::variant_size_v<Variant>>{});
}
}  // namespace

NodeToCoordinator parse_node_to_coordinator(const Json& body, int instances) {
  return parse<NodeToCoordinator>(body, Limits{instances - 1, kIntMax}, [](const MessageReader& m) {
    m.fail("type", "not a launcher message");
  });
}

CoordinatorToNode parse_coordinator_to_node(const Json& body, int instances) {
  return parse<CoordinatorToNode>(body, Limits{instances - 1, kIntMax}, [](const MessageReader& m) {
    m.fail("type", "unknown message type");
  });
}

ControlRequest parse_control_request(const Json& body) {
  return parse<ControlRequest>(
      body, Limits{}, [](const MessageReader& m) { m.fail("type", "not a control request"); });
}

ControlReply parse_control_reply(const Json& body) {
  return parse<ControlReply>(body, Limits{kAnyInstance, kAnyInstance}, [](const MessageReader& m) {
    throw ProtocolError("unexpected message \"" + m.type() + "\"");
  });
}

std::vector<HostChange> parse_host_changes(const Json& hosts) {
  if (!hosts.is_array()) throw ProtocolError("assign: hosts: expected an array");
  std::vector<HostChange> changes;
  for (const Json& c : hosts) {
    const bool well_formed =
        c.is_object() && c.contains("instance") && c["instance"].is_number_unsigned() &&
        c.contains("name") && c["name"].is_string() && c.contains("address") &&
        c["address"].is_string() && c.contains("slots") && c["slots"].is_number_integer();
    if (!well_formed) {
      throw ProtocolError(
          "assign: hosts: each change needs an instance, a string name and address and an "
          "integer slots");
    }
    changes.push_back(HostChange{c["instance"].get<std::size_t>(), c["name"].get<std::string>(),
                                 c["address"].get<std::string>(), c["slots"].get<int>()});
  }
  return changes;
}

}  // namespace pai::net
