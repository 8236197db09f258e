#include "launcher/net/protocol.h"

#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "launcher/net/message.h"

// Writing: one write() per message, the inverse of its read() in protocol_parse.cpp.

namespace pai::net {
namespace {

using Json = nlohmann::json;

template <class T>
struct IsVariant : std::false_type {};
template <class... T>
struct IsVariant<std::variant<T...>> : std::true_type {};

template <class T>
requires std::is_empty_v<T>
void write(Json&, const T&) {}

void write(Json& j, const Log& m) {
  j["rank"] = m.rank;
  j["instance"] = m.instance;
  j["data"] = base64_encode(m.data);
}

void write(Json& j, const Join& m) {
  j["node"] = m.node;
  j["checks"] = Json::parse(m.checks);
  j["pid"] = m.pid;
  if (!m.seal.empty()) j["seal"] = m.seal;
}

void write(Json& j, const Checks& m) { j["checks"] = Json::parse(m.checks); }

void write(Json& j, const Exited& m) {
  j["instance"] = m.instance;
  j["localRank"] = m.local_rank;
  j["status"] = Json{{"code", m.status.code}, {"signal", m.status.signal}};
  j["classification"] = Json{{"retryable", m.classification.retryable},
                             {"reason", m.classification.reason},
                             {"matchedLine", m.classification.matched_line},
                             {"signature", m.classification.signature}};
  j["stopping"] = m.stopping;
}

void write(Json& j, const Stopped& m) { j["instance"] = m.instance; }

void write(Json& j, const Hang& m) {
  j["instance"] = m.instance;
  j["exiting"] = m.exiting;
  j["seconds"] = m.seconds;
  j["reason"] = m.reason;
}

Json rank_json(const RankUsage& u) {
  return Json{{"rank", u.rank},
              {"pid", u.pid},
              {"cpuMs", u.cpu_ms},
              {"memoryBytes", u.memory_bytes},
              {"memoryPeakBytes", u.memory_peak_bytes}};
}

Json rank_json(const RankTelemetry& t) {
  Json j{{"rank", t.rank},
              {"step", t.step},
              {"steps", t.steps},
              {"stepUs", t.step_us},
              {"windowUs", t.window_us},
              {"commUs", t.comm_us},
              {"entered", t.entered},
              {"exited", t.exited},
              {"openMs", t.open_ms},
              {"op", t.op},
              {"quietMs", t.quiet_ms},
              {"lost", t.lost},
              {"tcpRttUs", t.tcp_rtt_us},
              {"tcpRetrans", t.tcp_retrans}};
  if (!t.tcp_slow_peers.empty()) j["tcpSlowPeers"] = t.tcp_slow_peers;
  if (!t.tcp_stalled_peers.empty()) j["tcpStalledPeers"] = t.tcp_stalled_peers;
  return j;
}

Json rank_json(const GpuSample& g) {
  return Json{{"index", g.index},
              {"utilization", g.utilization},
              {"memoryUsedBytes", g.memory_used_bytes},
              {"memoryTotalBytes", g.memory_total_bytes}};
}

// Per-rank lists (figures, telemetry) are optional on the wire: absent when there are none.
template <class T>
void write_ranks(Json& j, const char* key, const std::vector<T>& items) {
  if (items.empty()) return;
  Json list = Json::array();
  for (const T& each : items) list.push_back(rank_json(each));
  j[key] = std::move(list);
}

void write(Json& j, const NodeHeartbeat& m) {
  Json list = Json::array();
  for (const HeartbeatInstance& i : m.instances) {
    Json entry{{"instance", i.instance},
               {"idleMs", i.idle_ms},
               {"hangInterval", i.hang_interval},
               {"step", i.step}};
    write_ranks(entry, "ranks", i.ranks);
    write_ranks(entry, "telemetry", i.telemetry);
    list.push_back(std::move(entry));
  }
  j["instances"] = std::move(list);
  write_ranks(j, "gpus", m.gpus);
}

void write(Json& j, const Failure& m) {
  j["instance"] = m.instance;
  j["rank"] = m.rank;
  j["summary"] = m.summary;
}

void write(Json& j, const Forensics& m) {
  j["instance"] = m.instance;
  j["attempt"] = m.attempt;
  j["folder"] = m.folder;
  Json list = Json::array();
  for (const RankStacks& r : m.ranks) {
    list.push_back(Json{{"rank", r.rank}, {"place", r.place}, {"frame", r.frame}});
  }
  j["ranks"] = std::move(list);
}

void write(Json& j, const ExecOutput& m) {
  j["id"] = m.id;
  j["stream"] = to_string(m.stream);
  j["data"] = base64_encode(m.data);
}

void write(Json& j, const ExecExit& m) {
  j["id"] = m.id;
  j["code"] = m.code;
}

void write(Json& j, const Progress& m) { j["text"] = m.text; }

void write(Json& j, const Assign& m) {
  Json list = Json::array();
  for (const HostChange& c : m.hosts) {
    list.push_back(Json{
        {"instance", c.instance}, {"name", c.name}, {"address", c.address}, {"slots", c.slots}});
  }
  j["instance"] = m.instance;
  j["hosts"] = std::move(list);
}

void write(Json& j, const RunChecks& m) { j["attempt"] = m.attempt; }

void write(Json& j, const Start& m) {
  j["instance"] = m.instance;
  j["attempt"] = m.attempt;
}

void write(Json& j, const Stop& m) {
  j["instance"] = m.instance;
  j["signal"] = m.signal;
  j["dumpStacks"] = m.dump_stacks;
  j["reason"] = m.reason;
}

void write(Json& j, const Kill& m) { j["instance"] = m.instance; }

void write(Json& j, const Finish& m) {
  j["exitCode"] = m.exit_code;
  j["reason"] = m.reason;
  if (m.cancelled) j["cancelled"] = true;
}

void write(Json& j, const Cancel& m) { j["signal"] = m.signal; }

// The NCCL engine's fields of fabric-listen and fabric-connect, flat beside the others.
void write_nccl(Json& j, const std::optional<FabricNccl>& nccl) {
  if (!nccl) return;
  j["ncclRanks"] = nccl->ranks;
  j["ncclFirstRank"] = nccl->first_rank;
  if (!nccl->unique_id.empty()) j["ncclId"] = base64_encode(nccl->unique_id);
}

void write(Json& j, const FabricListening& m) {
  j["round"] = m.round;
  j["pair"] = m.pair;
  j["address"] = m.address;
  j["port"] = m.port;
  if (!m.nccl_id.empty()) j["ncclId"] = base64_encode(m.nccl_id);
}

void write(Json& j, const FabricResult& m) {
  j["round"] = m.round;
  j["pair"] = m.pair;
  j["error"] = m.error;
  j["outKbps"] = m.out_kbps;
  j["inKbps"] = m.in_kbps;
  j["latencyNs"] = m.latency_ns;
  if (m.bus_mbps) j["busMBps"] = *m.bus_mbps;
}

void write(Json& j, const FabricListen& m) {
  j["round"] = m.round;
  j["pair"] = m.pair;
  j["key"] = m.key;
  write_nccl(j, m.nccl);
}

void write(Json& j, const FabricConnect& m) {
  j["round"] = m.round;
  j["pair"] = m.pair;
  j["key"] = m.key;
  j["address"] = m.address;
  j["port"] = m.port;
  write_nccl(j, m.nccl);
}

void write(Json& j, const Exec& m) {
  j["id"] = m.id;
  j["argv"] = m.argv;
  j["stdin"] = m.takes_stdin;
}

void write(Json& j, const ExecStdin& m) {
  j["id"] = m.id;
  j["data"] = base64_encode(m.data);
  j["eof"] = m.eof;
}

void write(Json& j, const ExecKill& m) { j["id"] = m.id; }

void write(Json& j, const SubscribeLogs& m) {
  j["rank"] = m.rank;
  j["tail"] = m.tail;
  // Absent is "every line", as from peers older than the field.
  if (m.lines >= 0) j["lines"] = m.lines;
}

void write(Json& j, const KillRequest& m) { j["instance"] = m.instance; }

void write(Json& j, const RunRequest& m) { j["argv"] = m.argv; }

void write(Json& j, const RshRequest& m) {
  j["node"] = m.node;
  j["argv"] = m.argv;
}

void write(Json& j, const RshStdin& m) {
  j["data"] = base64_encode(m.data);
  j["eof"] = m.eof;
}

void write(Json& j, const LogsRequest& m) {
  j["rank"] = m.rank;
  j["follow"] = m.follow;
  j["tail"] = m.tail;
  if (m.lines >= 0) j["lines"] = m.lines;
}

void write(Json& j, const StatusReply& m) {
  Json nodes = Json::array();
  for (const NodeStatus& n : m.nodes) {
    Json entry{{"node", n.node},
               {"address", n.address},
               {"instance", n.instance},
               {"role", n.role},
               {"index", n.index},
               {"ranks", n.ranks},
               {"state", n.state},
               {"restarts", n.restarts},
               {"lastEvent", n.last_event}};
    write_ranks(entry, "usage", n.usage);
    if (n.attempt >= 0) entry["attempt"] = n.attempt;
    if (n.elapsed_ms >= 0) entry["elapsedMs"] = n.elapsed_ms;
    write_ranks(entry, "telemetry", n.telemetry);
    write_ranks(entry, "gpus", n.gpus);
    nodes.push_back(std::move(entry));
  }
  j["job"] = m.job;
  j["phase"] = m.phase;
  j["nodes"] = std::move(nodes);
}

void write(Json& j, const OkReply& m) { j["text"] = m.text; }

void write(Json& j, const ErrorReply& m) { j["text"] = m.text; }

void write(Json& j, const NodeExecOutput& m) {
  j["node"] = m.node;
  j["stream"] = to_string(m.stream);
  j["data"] = base64_encode(m.data);
}

void write(Json& j, const NodeExecExit& m) {
  j["node"] = m.node;
  j["code"] = m.code;
}

}  // namespace

const char* to_string(Stream stream) { return stream == Stream::Stderr ? "stderr" : "stdout"; }

template <class Message>
Json to_json(const Message& message) {
  if constexpr (IsVariant<Message>::value) {
    return std::visit([](const auto& m) { return to_json(m); }, message);
  } else {
    Json body = Json::object();
    write(body, message);
    body["type"] = Message::kType;
    return body;
  }
}

// to_json exists for exactly the messages of protocol.h and their variants.
template Json to_json(const Heartbeat&);
template Json to_json(const Log&);
template Json to_json(const Join&);
template Json to_json(const Checks&);
template Json to_json(const Exited&);
template Json to_json(const Stopped&);
template Json to_json(const Hang&);
template Json to_json(const NodeHeartbeat&);
template Json to_json(const Failure&);
template Json to_json(const Forensics&);
template Json to_json(const ExecOutput&);
template Json to_json(const ExecExit&);
template Json to_json(const LogEnd&);
template Json to_json(const Cancel&);
template Json to_json(const FabricListening&);
template Json to_json(const FabricResult&);
template Json to_json(const NodeToCoordinator&);
template Json to_json(const Progress&);
template Json to_json(const Assign&);
template Json to_json(const Standby&);
template Json to_json(const RunChecks&);
template Json to_json(const Start&);
template Json to_json(const Stop&);
template Json to_json(const Kill&);
template Json to_json(const Finish&);
template Json to_json(const Exec&);
template Json to_json(const ExecStdin&);
template Json to_json(const ExecKill&);
template Json to_json(const SubscribeLogs&);
template Json to_json(const UnsubscribeLogs&);
template Json to_json(const FabricListen&);
template Json to_json(const FabricConnect&);
template Json to_json(const CoordinatorToNode&);
template Json to_json(const StatusRequest&);
template Json to_json(const PauseRequest&);
template Json to_json(const ResumeRequest&);
template Json to_json(const CancelRequest&);
template Json to_json(const KillRequest&);
template Json to_json(const RunRequest&);
template Json to_json(const RshRequest&);
template Json to_json(const RshStdin&);
template Json to_json(const LogsRequest&);
template Json to_json(const ControlRequest&);
template Json to_json(const StatusReply&);
template Json to_json(const OkReply&);
template Json to_json(const ErrorReply&);
template Json to_json(const NodeExecOutput&);
template Json to_json(const NodeExecExit&);
template Json to_json(const Done&);
template Json to_json(const ControlReply&);

}  // namespace pai::net
