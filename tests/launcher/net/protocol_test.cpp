// The protocol's messages as types: every message kind's JSON bytes against golden strings
// taken from the senders before they used these types (so the wire format did not change),
// parsed back to an equal value, and every kind of malformed message refused with its exact
// error.
#include "launcher/net/protocol.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "launcher/net/message.h"

namespace protocol_test {

using namespace pai::net;
using Json = nlohmann::json;

namespace {

// The plan the node-side messages come from has this many instances.
constexpr int kInstances = 3;

NodeToCoordinator from_node(const Json& body) {
  return parse_node_to_coordinator(body, kInstances);
}
CoordinatorToNode to_node(const Json& body) { return parse_coordinator_to_node(body, kInstances); }

// `message` serializes to exactly `golden`, which parses (as `Direction`) back to it.
template <class Direction, class Message, class Parse>
void check_golden(const Message& message, const std::string& golden, Parse parse) {
  INFO(golden);
  CHECK(to_json(message).dump() == golden);
  const Direction parsed = parse(Json::parse(golden));
  REQUIRE(std::holds_alternative<Message>(parsed));
  CHECK(std::get<Message>(parsed) == message);
  CHECK(to_json(parsed).dump() == golden);
  CHECK(std::string(type_of(parsed)) == Message::kType);
}

template <class Message>
void node_golden(const Message& message, const std::string& golden) {
  check_golden<NodeToCoordinator>(message, golden, from_node);
}
template <class Message>
void coordinator_golden(const Message& message, const std::string& golden) {
  check_golden<CoordinatorToNode>(message, golden, to_node);
}
template <class Message>
void request_golden(const Message& message, const std::string& golden) {
  check_golden<ControlRequest>(message, golden, parse_control_request);
}
template <class Message>
void reply_golden(const Message& message, const std::string& golden) {
  check_golden<ControlReply>(message, golden, parse_control_reply);
}

// The error `parse` throws for `text`, which must not parse.
template <class Parse>
std::string error_of(const std::string& text, Parse parse) {
  try {
    parse(Json::parse(text));
  } catch (const ProtocolError& e) {
    return e.what();
  }
  FAIL("parsed without an error: " + text);
  return {};
}

// gpu passes with a driver fact, burn passes: checks::to_json's array, compact.
const std::string kChecks =
    R"([{"detail":"","facts":{"driver":"550.54.15"},"figure":"","name":"gpu","seconds":0.0,)"
    R"("status":"passed","summary":"8x NVIDIA H100 80GB HBM3"},{"detail":"","facts":{},)"
    R"("figure":"","name":"burn","seconds":0.0,"status":"passed","summary":"412.3 TFLOPS"}])";

}  // namespace

TEST_CASE("node launcher messages keep their bytes") {
  node_golden(Join{"node-0", kChecks, 4242, ""},
              R"({"checks":)" + kChecks + R"(,"node":"node-0","pid":4242,"type":"join"})");
  node_golden(Join{"gpu-001", "[]", 4242, ""},
              R"({"checks":[],"node":"gpu-001","pid":4242,"type":"join"})");
  // Added with the keyed plan seal: an optional member, absent when the launcher has none
  // (so the joins above keep their bytes).
  const std::string seal = "hmac-sha256:" + std::string(64, 'a');
  node_golden(
      Join{"gpu-001", "[]", 4242, seal},
      R"({"checks":[],"node":"gpu-001","pid":4242,"seal":")" + seal + R"(","type":"join"})");
  node_golden(Join{"gpu-001", "[]", 4242, "sha256:" + std::string(64, '0')},
              R"({"checks":[],"node":"gpu-001","pid":4242,"seal":"sha256:)" + std::string(64, '0') +
                  R"(","type":"join"})");
  // Added with coordinator.ha: what a launcher joining the next coordinator ran last.
  Join rejoin{"gpu-001", "[]", 4242, ""};
  rejoin.ran_instance = 1;
  rejoin.ran_attempt = 3;
  node_golden(
      rejoin,
      R"({"checks":[],"node":"gpu-001","pid":4242,"ranAttempt":3,"ranInstance":1,"type":"join"})");
  node_golden(Checks{kChecks}, R"({"checks":)" + kChecks + R"(,"type":"checks"})");
  node_golden(Checks{"[]"}, R"({"checks":[],"type":"checks"})");
  node_golden(Exited{1,
                     1,
                     {1, 0},
                     {true, "NCCL error: retryable", "NCCL WARN unhandled system error",
                      "pattern:NCCL error"},
                     false},
              R"({"classification":{"matchedLine":"NCCL WARN unhandled system error",)"
              R"("reason":"NCCL error: retryable","retryable":true,)"
              R"("signature":"pattern:NCCL error"},"instance":1,"localRank":1,)"
              R"("status":{"code":1,"signal":0},"stopping":false,"type":"exited"})");
  node_golden(Stopped{1}, R"({"instance":1,"type":"stopped"})");
  node_golden(Checkpointed{1, 40, 3},
              R"({"instance":1,"request":3,"step":40,"type":"checkpointed"})");
  node_golden(Hang{1, true, 300, "ranks did not exit within 300s"},
              R"({"exiting":true,"instance":1,"reason":"ranks did not exit within 300s",)"
              R"("seconds":300,"type":"hang"})");
  node_golden(NodeHeartbeat{{{1, 1500, 1800, 12, {}, {}}}},
              R"({"instances":[{"hangInterval":1800,"idleMs":1500,"instance":1,"step":12}],)"
              R"("type":"heartbeat"})");
  node_golden(NodeHeartbeat{}, R"({"instances":[],"type":"heartbeat"})");
  node_golden(
      NodeHeartbeat{{{1, 0, 0, 3, {{2, 4711, 1500, 1 << 20, 2 << 20}, {3, 4712, 0, -1, -1}}, {}}}},
      R"({"instances":[{"hangInterval":0,"idleMs":0,"instance":1,"ranks":[)"
      R"({"cpuMs":1500,"memoryBytes":1048576,"memoryPeakBytes":2097152,"pid":4711,)"
      R"("rank":2},{"cpuMs":0,"memoryBytes":-1,"memoryPeakBytes":-1,"pid":4712,)"
      R"("rank":3}],"step":3}],"type":"heartbeat"})");
  node_golden(Failure{1, 3, "Traceback (most recent call last):\nRuntimeError: NCCL\n"},
              R"({"instance":1,"rank":3,)"
              R"("summary":"Traceback (most recent call last):\nRuntimeError: NCCL\n",)"
              R"("type":"failure"})");
  node_golden(Forensics{1,
                        2,
                        "/runs/t/logs/forensics/attempt-2",
                        {{3, "outside", "<module> (train.py:8)"}, {4, "unknown", ""}}},
              R"({"attempt":2,"folder":"/runs/t/logs/forensics/attempt-2","instance":1,)"
              R"J("ranks":[{"frame":"<module> (train.py:8)","place":"outside","rank":3},)J"
              R"({"frame":"","place":"unknown","rank":4}],"type":"forensics"})");
  node_golden(Forensics{0, 0, "f", {}},
              R"({"attempt":0,"folder":"f","instance":0,"ranks":[],"type":"forensics"})");
  node_golden(ExecOutput{7, Stream::Stderr, "GPU 0: H100\n"},
              R"({"data":"R1BVIDA6IEgxMDAK","id":7,"stream":"stderr","type":"exec-output"})");
  node_golden(ExecExit{7, 3}, R"({"code":3,"id":7,"type":"exec-exit"})");
  node_golden(Log{2, 1, "step 10 loss 2.1\n"},
              R"({"data":"c3RlcCAxMCBsb3NzIDIuMQo=","instance":1,"rank":2,"type":"log"})");
  node_golden(LogEnd{}, R"({"type":"log-end"})");
  node_golden(Cancel{15}, R"({"signal":15,"type":"cancel"})");
  node_golden(NodeFailed{"cannot serve the ranks' store"},
              R"({"reason":"cannot serve the ranks' store","type":"node-failed"})");
  node_golden(FabricListening{2, 1, "10.0.0.3", 29999},
              R"({"address":"10.0.0.3","pair":1,"port":29999,"round":2,)"
              R"("type":"fabric-listening"})");
  node_golden(FabricListening{1, 0, "", 20001},
              R"({"address":"","pair":0,"port":20001,"round":1,"type":"fabric-listening"})");
  node_golden(FabricResult{1, 3, "", 9'400'000, 9'100'000, 31'000},
              R"({"error":"","inKbps":9100000,"latencyNs":31000,"outKbps":9400000,"pair":3,)"
              R"("round":1,"type":"fabric-result"})");
  node_golden(FabricResult{3, 0, "connect to 10.0.0.2:20001: refused", 0, 0, 0},
              R"({"error":"connect to 10.0.0.2:20001: refused","inKbps":0,"latencyNs":0,)"
              R"("outKbps":0,"pair":0,"round":3,"type":"fabric-result"})");
}

TEST_CASE("a fabric message out of its range or with a bad address or key is refused") {
  const auto result = [](const std::string& field, const Json& value) {
    Json m = Json::parse(R"({"type":"fabric-result","round":1,"pair":0,"error":"",)"
                         R"("outKbps":1,"inKbps":1,"latencyNs":1})");
    m[field] = value;
    return m.dump();
  };
  REQUIRE_NOTHROW(from_node(Json::parse(result("pair", 5))));
  REQUIRE_NOTHROW(from_node(Json::parse(result("round", 4))));  // the all-nodes round
  CHECK(error_of(result("round", 5), from_node) ==
        "fabric-result: round: expected an integer in [1, 4], got 5");
  CHECK(error_of(result("round", 0), from_node) ==
        "fabric-result: round: expected an integer in [1, 4], got 0");
  CHECK(error_of(result("outKbps", -1), from_node) ==
        "fabric-result: outKbps: expected a non-negative integer");
  CHECK(error_of(result("inKbps", 10'000'000'001), from_node) ==
        "fabric-result: inKbps: expected at most 10000000000");
  CHECK(error_of(result("latencyNs", 1.5), from_node) ==
        "fabric-result: latencyNs: expected an integer");
  CHECK(error_of(result("error", std::string(513, 'x')), from_node) ==
        "fabric-result: error: longer than 512 bytes");
  const auto listening = [](const Json& address, const Json& port) {
    return Json{{"type", "fabric-listening"},
                {"round", 1},
                {"pair", 0},
                {"address", address},
                {"port", port}}
        .dump();
  };
  REQUIRE_NOTHROW(from_node(Json::parse(listening("fd00::1", 1))));
  CHECK(error_of(listening("node-2", 20001), from_node) ==
        "fabric-listening: address: expected a numeric IPv4 or IPv6 address");
  CHECK(error_of(listening("10.0.0.1", 0), from_node) ==
        "fabric-listening: port: expected an integer in [1, 65535], got 0");
  const auto connect = [](const Json& key, const Json& address) {
    return Json{{"type", "fabric-connect"}, {"round", 2},   {"pair", 0}, {"key", key},
                {"address", address},       {"port", 20001}}
        .dump();
  };
  REQUIRE_NOTHROW(to_node(Json::parse(connect(std::string(32, 'k'), "127.0.0.1"))));
  CHECK(error_of(connect(std::string(33, 'k'), "127.0.0.1"), to_node) ==
        "fabric-connect: key: expected 1 to 32 bytes");
  CHECK(error_of(connect("", "127.0.0.1"), to_node) ==
        "fabric-connect: key: expected 1 to 32 bytes");
  // The connector must be told where to go: its partner's address cannot be left empty.
  CHECK(error_of(connect("k", ""), to_node) ==
        "fabric-connect: address: expected a numeric IPv4 or IPv6 address");
}

TEST_CASE("the fabric messages of the NCCL engine carry ranks, the id and the bus bandwidth") {
  const std::string id(kNcclUniqueIdBytes, '\x07');
  const std::string id64 = base64_encode(id);
  coordinator_golden(FabricListen{1, 2, "k", FabricNccl{16, 0, ""}},
                     R"({"key":"k","ncclFirstRank":0,"ncclRanks":16,"pair":2,"round":1,)"
                     R"("type":"fabric-listen"})");
  coordinator_golden(FabricConnect{1, 2, "k", "10.0.0.3", 29999, FabricNccl{16, 8, id}},
                     R"({"address":"10.0.0.3","key":"k","ncclFirstRank":8,"ncclId":")" + id64 +
                         R"(","ncclRanks":16,"pair":2,"port":29999,"round":1,)"
                         R"("type":"fabric-connect"})");
  node_golden(FabricListening{1, 2, "", 20001, id},
              R"({"address":"","ncclId":")" + id64 +
                  R"(","pair":2,"port":20001,"round":1,"type":"fabric-listening"})");
  FabricResult measured{1, 2, "", 9'400'000, 9'100'000, 31'000};
  measured.bus_mbps = 45'200;
  node_golden(measured,
              R"({"busMBps":45200,"error":"","inKbps":9100000,"latencyNs":31000,)"
              R"("outKbps":9400000,"pair":2,"round":1,"type":"fabric-result"})");
}

TEST_CASE("fabric NCCL fields that are incomplete, out of range or of the wrong size are refused") {
  const std::string id64 = base64_encode(std::string(kNcclUniqueIdBytes, 'x'));
  const auto connect = [](const Json& ranks, const Json& first, const Json& id) {
    Json m{{"type", "fabric-connect"}, {"round", 1},  {"pair", 0},
           {"key", "k"},               {"address", "10.0.0.1"}, {"port", 20001}};
    if (!ranks.is_null()) m["ncclRanks"] = ranks;
    if (!first.is_null()) m["ncclFirstRank"] = first;
    if (!id.is_null()) m["ncclId"] = id;
    return m.dump();
  };
  REQUIRE_NOTHROW(to_node(Json::parse(connect(16, 8, id64))));
  CHECK(error_of(connect(nullptr, 8, id64), to_node) == "fabric-connect: ncclRanks: missing");
  CHECK(error_of(connect(1, 0, id64), to_node) ==
        "fabric-connect: ncclRanks: expected an integer in [2, 1024], got 1");
  CHECK(error_of(connect(16, 16, id64), to_node) ==
        "fabric-connect: ncclFirstRank: expected an integer in [0, 15], got 16");
  CHECK(error_of(connect(16, 8, nullptr), to_node) == "fabric-connect: ncclId: missing");
  CHECK(error_of(connect(16, 8, base64_encode("short")), to_node) ==
        "fabric-connect: ncclId: expected 128 bytes, got 5");
  const Json listen{{"type", "fabric-listen"}, {"round", 1},         {"pair", 0},
                    {"key", "k"},              {"ncclRanks", 16},    {"ncclFirstRank", 0},
                    {"ncclId", id64}};
  CHECK(error_of(listen.dump(), to_node) ==
        "fabric-listen: ncclId: the listening end makes the id");
  Json result = Json::parse(R"({"type":"fabric-result","round":1,"pair":0,"error":"",)"
                            R"("outKbps":1,"inKbps":1,"latencyNs":1})");
  result["busMBps"] = 10'000'001;
  CHECK(error_of(result.dump(), from_node) == "fabric-result: busMBps: expected at most 10000000");
  result["busMBps"] = -1;
  CHECK(error_of(result.dump(), from_node) ==
        "fabric-result: busMBps: expected a non-negative integer");
}

TEST_CASE("heartbeats carry the ranks' telemetry when there is some") {
  // Added with the telemetry summaries: optional, absent when empty (so the heartbeats above
  // keep their bytes).
  const RankTelemetry busy{.rank = 2,
                           .step = 41,
                           .steps = 3,
                           .step_us = 2'940'000,
                           .window_us = 1'000'000,
                           .comm_us = 310'000,
                           .entered = 1205,
                           .exited = 1204,
                           .open_ms = 12,
                           .op = 1,
                           .quiet_ms = 12,
                           .lost = 0,
                           .tcp_rtt_us = 85,
                           .tcp_retrans = 2,
                           .tcp_slow_peers = {"10.0.0.7", "fd00::3"},
                           .tcp_stalled_peers = {"10.0.0.9"}};
  const RankTelemetry silent{.rank = 3, .window_us = 1'000'000, .lost = 7};
  node_golden(NodeHeartbeat{{{.instance = 1,
                              .idle_ms = 0,
                              .hang_interval = 0,
                              .step = 41,
                              .ranks = {},
                              .telemetry = {busy, silent}}}},
              R"({"instances":[{"hangInterval":0,"idleMs":0,"instance":1,"step":41,"telemetry":[)"
              R"({"commUs":310000,"entered":1205,"exited":1204,"lost":0,"op":1,"openMs":12,)"
              R"("quietMs":12,"rank":2,"step":41,"stepUs":2940000,"steps":3,"tcpRetrans":2,)"
              R"("tcpRttUs":85,"tcpSlowPeers":["10.0.0.7","fd00::3"],"tcpStalledPeers":["10.0.0.9"],)"
              R"("windowUs":1000000},)"
              R"({"commUs":0,"entered":0,"exited":0,"lost":7,"op":0,"openMs":-1,"quietMs":-1,)"
              R"("rank":3,"step":-1,"stepUs":0,"steps":0,"tcpRetrans":-1,"tcpRttUs":-1,)"
              R"("windowUs":1000000}]}],"type":"heartbeat"})");
}

TEST_CASE("a telemetry figure missing, mistyped or out of its range is refused") {
  const Json valid = Json::parse(
      R"({"rank":2,"step":41,"steps":3,"stepUs":2940000,"windowUs":1000000,"commUs":310000,)"
      R"("entered":1205,"exited":1204,"openMs":12,"op":1,"quietMs":12,"lost":0,"tcpRttUs":85,)"
      R"("tcpRetrans":2})");
  const auto beat_with = [](const Json& telemetry) {
    Json beat = Json::parse(
        R"({"type":"heartbeat","instances":[{"instance":0,"idleMs":1,"hangInterval":1,"step":0}]})");
    beat["instances"][0]["telemetry"] = telemetry;
    return beat.dump();
  };
  REQUIRE_NOTHROW(from_node(Json::parse(beat_with(Json::array({valid})))));
  const std::string non_negative = "expected a non-negative integer";
  const std::string none_or_more = "expected -1 or a non-negative integer";
  const std::vector<std::tuple<std::string, Json, std::string>> cases = {
      {"rank", -1, non_negative},
      {"step", -2, none_or_more},
      {"steps", -1, non_negative},
      {"stepUs", -1, non_negative},
      {"windowUs", -1, non_negative},
      {"commUs", -1, non_negative},
      {"commUs", 1000001, "expected at most windowUs"},
      {"entered", -1, non_negative},
      {"exited", -1, non_negative},
      {"exited", 1206, "expected at most entered"},
      {"openMs", -2, none_or_more},
      {"op", 256, "expected an integer in [0, 255], got 256"},
      {"op", -1, "expected an integer in [0, 255], got -1"},
      {"quietMs", -2, none_or_more},
      {"lost", -1, non_negative},
      {"tcpRttUs", -2, none_or_more},
      {"tcpRetrans", -2, none_or_more},
      {"steps", "3", "expected an integer"},
      {"tcpRetrans", nullptr, "missing"},
      {"tcpSlowPeers", "10.0.0.7", "expected an array of strings"},
      {"tcpSlowPeers", Json::array({"10.0.0.7", "gpu-007"}),
       "expected numeric IPv4 or IPv6 addresses"},
      {"tcpSlowPeers", Json::array({"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"}),
       "expected at most 4 addresses"},
      {"tcpStalledPeers", Json::array({"::1", "node-3"}), "expected numeric IPv4 or IPv6 addresses"},
  };
  for (const auto& [key, value, error] : cases) {
    Json entry = valid;
    if (value.is_null()) {
      entry.erase(key);
    } else {
      entry[key] = value;
    }
    INFO(entry.dump());
    CHECK(error_of(beat_with(Json::array({valid, entry})), from_node) ==
          "heartbeat.instances[0].telemetry[1]: " + key + ": " + error);
  }
  CHECK(error_of(beat_with(Json::object()), from_node) ==
        "heartbeat.instances[0]: telemetry: expected an array");
  CHECK(error_of(beat_with(Json::array({1})), from_node) ==
        "heartbeat.instances[0]: telemetry: expected an array of objects");
}

TEST_CASE("heartbeats carry the node's GPU samples when it took some") {
  node_golden(NodeHeartbeat{.instances = {},
                            .gpus = {{.index = 0,
                                      .utilization = 97,
                                      .memory_used_bytes = 1 << 30,
                                      .memory_total_bytes = 80ll << 30},
                                     {.index = 1,
                                      .utilization = -1,
                                      .memory_used_bytes = -1,
                                      .memory_total_bytes = -1}}},
              R"({"gpus":[{"index":0,"memoryTotalBytes":85899345920,)"
              R"("memoryUsedBytes":1073741824,"utilization":97},)"
              R"({"index":1,"memoryTotalBytes":-1,"memoryUsedBytes":-1,"utilization":-1}],)"
              R"("instances":[],"type":"heartbeat"})");
}

TEST_CASE("a GPU sample missing, mistyped, out of its range or repeated is refused") {
  const Json valid =
      Json::parse(R"({"index":1,"utilization":5,"memoryUsedBytes":1024,"memoryTotalBytes":4096})");
  const auto beat_with = [](const Json& gpus) {
    Json beat = Json::parse(R"({"type":"heartbeat","instances":[]})");
    beat["gpus"] = gpus;
    return beat.dump();
  };
  REQUIRE_NOTHROW(from_node(Json::parse(beat_with(Json::array({valid})))));
  const std::vector<std::tuple<std::string, Json, std::string>> cases = {
      {"index", -1, "expected a non-negative integer"},
      {"index", 64, "expected an index below 64"},
      {"utilization", 101, "expected an integer in [-1, 100], got 101"},
      {"utilization", -2, "expected an integer in [-1, 100], got -2"},
      {"utilization", "5", "expected an integer"},
      {"memoryUsedBytes", -2, "expected -1 or a non-negative integer"},
      {"memoryUsedBytes", 4097, "expected at most memoryTotalBytes"},
      {"memoryTotalBytes", 1e30, "expected an integer"},
      {"memoryTotalBytes", nullptr, "missing"},
  };
  for (const auto& [key, value, error] : cases) {
    Json entry = valid;
    if (value.is_null()) {
      entry.erase(key);
    } else {
      entry[key] = value;
    }
    entry["index"] = key == "index" ? entry["index"] : Json(2);
    INFO(entry.dump());
    CHECK(error_of(beat_with(Json::array({valid, entry})), from_node) ==
          "heartbeat.gpus[1]: " + key + ": " + error);
  }
  CHECK(error_of(beat_with(Json::array({valid, valid})), from_node) ==
        "heartbeat: gpus: GPU 1 listed twice");
  CHECK(error_of(beat_with(Json::object()), from_node) == "heartbeat: gpus: expected an array");
  CHECK(error_of(beat_with(Json(std::vector<Json>(65, valid))), from_node) ==
        "heartbeat: gpus: more than 64 GPUs");
}

TEST_CASE("heartbeats carry the ranks' NCCL links and the node's RDMA ports") {
  const RankTelemetry rank{.rank = 1,
                           .window_us = 1'000'000,
                           .nccl_peers = {{.peer = 2, .dir = "send", .bytes = 1 << 20,
                                           .busy_us = 900, .stalled_ms = -1},
                                          {.peer = 0, .dir = "recv", .bytes = 0, .busy_us = 0,
                                           .stalled_ms = 3100}},
                           .nccl_peer_links = 2};
  node_golden(NodeHeartbeat{.instances = {{.instance = 0,
                                           .idle_ms = 0,
                                           .hang_interval = 0,
                                           .step = 0,
                                           .ranks = {},
                                           .telemetry = {rank}}},
                            .gpus = {},
                            .nics = {{.port = "mlx5_0/1",
                                      .netdev = "eth2",
                                      .state = "ACTIVE",
                                      .window_ms = 1000,
                                      .counters = {{"counters/port_xmit_data", 262144},
                                                   {"hw_counters/np_cnp_sent", 12}}},
                                     {.port = "mlx5_1/1", .netdev = "", .state = "",
                                      .window_ms = 0, .counters = {}}}},
              R"({"instances":[{"hangInterval":0,"idleMs":0,"instance":0,"step":0,"telemetry":[)"
              R"({"commUs":0,"entered":0,"exited":0,"lost":0,"ncclPeerLinks":2,"ncclPeers":[)"
              R"({"busyUs":900,"bytes":1048576,"dir":"send","peer":2,"stalledMs":-1},)"
              R"({"busyUs":0,"bytes":0,"dir":"recv","peer":0,"stalledMs":3100}],)"
              R"("op":0,"openMs":-1,"quietMs":-1,"rank":1,"step":-1,"stepUs":0,"steps":0,)"
              R"("tcpRetrans":-1,"tcpRttUs":-1,"windowUs":1000000}]}],)"
              R"("nics":[{"counters":[{"counter":"counters/port_xmit_data","delta":262144},)"
              R"({"counter":"hw_counters/np_cnp_sent","delta":12}],"netdev":"eth2",)"
              R"("port":"mlx5_0/1","state":"ACTIVE","windowMs":1000},)"
              R"({"netdev":"","port":"mlx5_1/1","state":"","windowMs":0}],"type":"heartbeat"})");
}

TEST_CASE("an NCCL link or a NIC port malformed, out of range or too many is refused") {
  const Json peer = Json::parse(R"({"peer":2,"dir":"send","bytes":1,"busyUs":1,"stalledMs":-1})");
  const auto telemetry_with = [](const Json& peers) {
    Json beat = Json::parse(
        R"({"type":"heartbeat","instances":[{"instance":0,"idleMs":1,"hangInterval":1,"step":0,)"
        R"("telemetry":[{"rank":1,"step":-1,"steps":0,"stepUs":0,"windowUs":0,"commUs":0,)"
        R"("entered":0,"exited":0,"openMs":-1,"op":0,"quietMs":-1,"lost":0,"tcpRttUs":-1,)"
        R"("tcpRetrans":-1}]}]})");
    beat["instances"][0]["telemetry"][0]["ncclPeers"] = peers;
    return beat.dump();
  };
  REQUIRE_NOTHROW(from_node(Json::parse(telemetry_with(Json::array({peer})))));
  const std::string at = "heartbeat.instances[0].telemetry[0].ncclPeers[0]: ";
  const std::vector<std::tuple<std::string, Json, std::string>> cases = {
      {"dir", "both", "expected \"send\" or \"recv\", got \"both\""},
      {"peer", -1, "expected an integer in [0, 2147483647], got -1"},
      {"bytes", -1, "expected a non-negative integer"},
      {"busyUs", "1", "expected an integer"},
      {"stalledMs", -2, "expected -1 or a non-negative integer"},
      {"peer", nullptr, "missing"},
  };
  for (const auto& [key, value, error] : cases) {
    Json entry = peer;
    if (value.is_null()) {
      entry.erase(key);
    } else {
      entry[key] = value;
    }
    INFO(entry.dump());
    CHECK(error_of(telemetry_with(Json::array({entry})), from_node) == at + key + ": " + error);
  }
  CHECK(error_of(telemetry_with(Json(std::vector<Json>(9, peer))), from_node) ==
        "heartbeat.instances[0].telemetry[0]: ncclPeers: more than 8 peers");

  const Json port = Json::parse(
      R"({"port":"mlx5_0/1","netdev":"eth2","state":"ACTIVE","windowMs":1000,)"
      R"("counters":[{"counter":"hw_counters/np_cnp_sent","delta":3}]})");
  const auto beat_with = [](const Json& nics) {
    Json beat = Json::parse(R"({"type":"heartbeat","instances":[]})");
    beat["nics"] = nics;
    return beat.dump();
  };
  REQUIRE_NOTHROW(from_node(Json::parse(beat_with(Json::array({port})))));
  CHECK(error_of(beat_with(Json::array({Json::object()})), from_node) ==
        "heartbeat.nics[0]: port: missing");
  Json long_name = port;
  long_name["port"] = std::string(65, 'x');
  CHECK(error_of(beat_with(Json::array({long_name})), from_node) ==
        "heartbeat.nics[0]: port: expected 1 to 64 bytes");
  Json shrinking = port;
  shrinking["counters"][0]["delta"] = -5;
  CHECK(error_of(beat_with(Json::array({shrinking})), from_node) ==
        "heartbeat.nics[0].counters[0]: delta: expected a non-negative integer");
  Json crowded = port;
  crowded["counters"] = Json(std::vector<Json>(65, port["counters"][0]));
  CHECK(error_of(beat_with(Json::array({crowded})), from_node) ==
        "heartbeat.nics[0]: counters: more than 64 counters");
  CHECK(error_of(beat_with(Json(std::vector<Json>(33, port))), from_node) ==
        "heartbeat: nics: more than 32 ports");
}

TEST_CASE("a NIC verdict for a node's history keeps its bytes - and is checked") {
  coordinator_golden(NicVerdictNotice{.port = "mlx5_0/1", .problem = "flapping",
                                      .evidence = "mlx5_0/1 (eth2): counters/link_downed +1 in 1 s"},
                     R"({"evidence":"mlx5_0/1 (eth2): counters/link_downed +1 in 1 s",)"
                     R"("port":"mlx5_0/1","problem":"flapping","type":"nic-verdict"})");
  const auto error = [](const std::string& text) {
    try {
      parse_coordinator_to_node(Json::parse(text), 4);
    } catch (const ProtocolError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error(R"({"type":"nic-verdict","port":"mlx5_0/1","problem":"slow","evidence":""})") ==
        "nic-verdict: problem: expected \"down\", \"flapping\" or \"errors\", got \"slow\"");
  CHECK(error(R"({"type":"nic-verdict","port":"","problem":"down","evidence":""})") ==
        "nic-verdict: port: expected 1 to 64 bytes");
  CHECK(error(R"({"type":"nic-verdict","problem":"down","evidence":""})") ==
        "nic-verdict: port: missing");
}

TEST_CASE("a swap's checkpoint advice asks for reports - a checkpointed report is checked") {
  coordinator_golden(
      CheckpointAdvice{600, 2, true},
      R"({"intervalSeconds":600,"report":true,"request":2,"type":"checkpoint-advice"})");
  coordinator_golden(CheckpointAdvice{600, 2, false},
                     R"({"intervalSeconds":600,"request":2,"type":"checkpoint-advice"})");
  CHECK(error_of(R"({"type":"checkpointed","instance":1,"step":40,"request":0})", from_node) ==
        "checkpointed: request: expected a request number from 1");
  CHECK(error_of(R"({"type":"checkpointed","instance":1,"step":-1,"request":1})", from_node) ==
        "checkpointed: step: expected a non-negative integer");
  CHECK(error_of(R"({"type":"checkpointed","instance":1,"request":1})", from_node) ==
        "checkpointed: step: missing");
  CHECK(error_of(R"({"type":"checkpoint-advice","intervalSeconds":1,"request":1,"report":1})",
                 to_node) == "checkpoint-advice: report: expected a boolean");
}

TEST_CASE("a drill's fault keeps its bytes both ways - its name, rank and seconds are checked") {
  coordinator_golden(Inject{1, 1, pai::DrillFault::RankHang, 60},
                     R"({"fault":"rank-hang","instance":1,"rank":1,"seconds":60,"type":"inject"})");
  coordinator_golden(Inject{0, 0, pai::DrillFault::NodeLoss, 0},
                     R"({"fault":"node-loss","instance":0,"rank":0,"seconds":0,"type":"inject"})");
  request_golden(InjectRequest{"worker-1", 3, pai::DrillFault::SlowRank, 30},
                 R"({"fault":"slow-rank","instance":"worker-1","rank":3,"seconds":30,)"
                 R"("type":"inject"})");
  coordinator_golden(Inject{2, 0, pai::DrillFault::DroppedLink, 15},
                     R"({"fault":"dropped-link","instance":2,"rank":0,"seconds":15,)"
                     R"("type":"inject"})");
  request_golden(InjectRequest{"worker-2", 0, pai::DrillFault::SlowLink, 20},
                 R"({"fault":"slow-link","instance":"worker-2","rank":0,"seconds":20,)"
                 R"("type":"inject"})");
  request_golden(InjectRequest{"worker-1", 1, pai::DrillFault::SlowGpu, 45},
                 R"({"fault":"slow-gpu","instance":"worker-1","rank":1,"seconds":45,)"
                 R"("type":"inject"})");
  request_golden(InjectRequest{"worker-0", 0, pai::DrillFault::RankKill, 0},
                 R"({"fault":"rank-kill","instance":"worker-0","rank":0,"seconds":0,)"
                 R"("type":"inject"})");
  CHECK(
      error_of(R"({"type":"inject","instance":0,"rank":0,"fault":"rm-rf","seconds":0})", to_node) ==
      "inject: fault: expected \"rank-kill\", \"rank-hang\", \"slow-rank\", "
      "\"collective-hang\", \"slow-gpu\", \"node-loss\", \"slow-link\", \"dropped-link\" or "
      "\"disk-full\", got \"rm-rf\"");
  CHECK(error_of(R"({"type":"inject","instance":0,"rank":0,"fault":"rank-hang","seconds":3601})",
                 to_node) == "inject: seconds: expected an integer in [0, 3600], got 3601");
  CHECK(error_of(R"({"type":"inject","instance":0,"rank":-1,"fault":"rank-hang","seconds":1})",
                 to_node) == "inject: rank: expected an integer in [0, 1073741824], got -1");
  CHECK(error_of(R"({"type":"inject","instance":3,"rank":0,"fault":"rank-kill","seconds":0})",
                 to_node) == "inject: instance: expected an integer in [0, 2], got 3");
  CHECK(error_of(R"({"type":"inject","instance":"w","rank":0,"fault":"rank-kill"})",
                 parse_control_request) == "inject: seconds: missing");
  CHECK(error_of(R"({"type":"inject","instance":"w","rank":0,"fault":7,"seconds":0})",
                 parse_control_request) == "inject: fault: expected a string");
}

TEST_CASE("coordinator messages to node launchers keep their bytes") {
  coordinator_golden(Progress{"0/3 joined; waiting for node-0: no connection; node-1: no "
                              "connection; node-2: no connection"},
                     R"({"text":"0/3 joined; waiting for node-0: no connection; node-1: no )"
                     R"(connection; node-2: no connection","type":"progress"})");
  coordinator_golden(Assign{2, {{2, "spare-0", "10.0.1.1", 8}}},
                     R"({"hosts":[{"address":"10.0.1.1","instance":2,"name":"spare-0",)"
                     R"("slots":8}],"instance":2,"type":"assign"})");
  coordinator_golden(Assign{0, {}}, R"({"hosts":[],"instance":0,"type":"assign"})");
  coordinator_golden(Standby{}, R"({"type":"standby"})");
  coordinator_golden(RunChecks{2}, R"({"attempt":2,"type":"run-checks"})");
  coordinator_golden(Start{0, 0}, R"({"attempt":0,"instance":0,"type":"start"})");
  coordinator_golden(Stop{1, SIGTERM, false, "worker-0 local rank 1: NCCL error"},
                     R"({"dumpStacks":false,"instance":1,)"
                     R"("reason":"worker-0 local rank 1: NCCL error","signal":15,"type":"stop"})");
  coordinator_golden(Stop{0, SIGTERM, false, "paused by admin-host"},
                     R"({"dumpStacks":false,"instance":0,"reason":"paused by admin-host",)"
                     R"("signal":15,"type":"stop"})");
  coordinator_golden(Kill{1}, R"({"instance":1,"type":"kill"})");
  coordinator_golden(Finish{0, "replaced by spare spare-0: failed check burn"},
                     R"({"exitCode":0,"reason":"replaced by spare spare-0: failed check burn",)"
                     R"("type":"finish"})");
  coordinator_golden(Finish{1, "worker-0 local rank 1: exit 1"},
                     R"({"exitCode":1,"reason":"worker-0 local rank 1: exit 1","type":"finish"})");
  coordinator_golden(Finish{143, "cancelled by SIGTERM on node-1", true},
                     R"({"cancelled":true,"exitCode":143,"reason":"cancelled by SIGTERM on node-1",)"
                     R"("type":"finish"})");
  coordinator_golden(Exec{2, {"nvidia-smi", "-L"}, false},
                     R"({"argv":["nvidia-smi","-L"],"id":2,"stdin":false,"type":"exec"})");
  coordinator_golden(Exec{4, {"/bin/sh", "-c", "ls"}, true},
                     R"({"argv":["/bin/sh","-c","ls"],"id":4,"stdin":true,"type":"exec"})");
  coordinator_golden(ExecStdin{4, "ls\n", true},
                     R"({"data":"bHMK","eof":true,"id":4,"type":"exec-stdin"})");
  coordinator_golden(ExecKill{4}, R"({"id":4,"type":"exec-kill"})");
  coordinator_golden(SubscribeLogs{-1, 4096, -1},
                     R"({"rank":-1,"tail":4096,"type":"subscribe-logs"})");
  coordinator_golden(SubscribeLogs{3, 1048576, 100},
                     R"({"lines":100,"rank":3,"tail":1048576,"type":"subscribe-logs"})");
  coordinator_golden(UnsubscribeLogs{}, R"({"type":"unsubscribe-logs"})");
  coordinator_golden(Heartbeat{}, R"({"type":"heartbeat"})");
  coordinator_golden(FabricListen{1, 2, "0123456789abcdef0123456789abcdef"},
                     R"({"key":"0123456789abcdef0123456789abcdef","pair":2,"round":1,)"
                     R"("type":"fabric-listen"})");
  coordinator_golden(FabricConnect{2, 0, "k", "10.0.0.3", 29999},
                     R"({"address":"10.0.0.3","key":"k","pair":0,"port":29999,"round":2,)"
                     R"("type":"fabric-connect"})");
}

TEST_CASE("control requests keep their bytes") {
  request_golden(StatusRequest{}, R"({"type":"status"})");
  request_golden(PauseRequest{}, R"({"type":"stop"})");
  request_golden(ResumeRequest{}, R"({"type":"start"})");
  request_golden(CancelRequest{}, R"({"type":"cancel"})");
  request_golden(KillRequest{"worker-1"}, R"({"instance":"worker-1","type":"kill"})");
  request_golden(RunRequest{{"sh", "-c", "hostname; exit 3"}},
                 R"({"argv":["sh","-c","hostname; exit 3"],"type":"run"})");
  request_golden(RshRequest{"node-4", {"/bin/sh", "-c", "orted -mca ess \"env\""}},
                 R"({"argv":["/bin/sh","-c","orted -mca ess \"env\""],"node":"node-4",)"
                 R"("type":"rsh"})");
  request_golden(RshStdin{"ls\n", false}, R"({"data":"bHMK","eof":false,"type":"exec-stdin"})");
  request_golden(RshStdin{"", true}, R"({"data":"","eof":true,"type":"exec-stdin"})");
  request_golden(LogsRequest{-1, true, 16384, -1},
                 R"({"follow":true,"rank":-1,"tail":16384,"type":"logs"})");
  request_golden(LogsRequest{2, false, 1048576, 100},
                 R"({"follow":false,"lines":100,"rank":2,"tail":1048576,"type":"logs"})");
  request_golden(Heartbeat{}, R"({"type":"heartbeat"})");
}

TEST_CASE("coordinator replies to control clients keep their bytes") {
  const StatusReply status{"test-job",
                           "running",
                           {{"node-0",
                             "10.0.0.1",
                             0,
                             "worker",
                             0,
                             {0, 1},
                             "running",
                             0,
                             "started attempt 0",
                             {},
                             -1,
                             -1,
                             {}},
                            {"node-1",
                             "10.0.0.2",
                             1,
                             "worker",
                             1,
                             {2, 3},
                             "running",
                             0,
                             "started attempt 0",
                             {},
                             -1,
                             -1,
                             {}},
                            {"node-2",
                             "10.0.0.3",
                             -1,
                             "",
                             -1,
                             {},
                             "replaced",
                             0,
                             "replaced by spare spare-0: failed check burn",
                             {},
                             -1,
                             -1,
                             {}},
                            {"spare-0",
                             "10.0.1.1",
                             2,
                             "ps",
                             0,
                             {4, 4},
                             "running",
                             0,
                             "started attempt 0",
                             {},
                             -1,
                             -1,
                             {}}}};
  reply_golden(
      status,
      R"({"job":"test-job","nodes":[{"address":"10.0.0.1","index":0,"instance":0,)"
      R"("lastEvent":"started attempt 0","node":"node-0","ranks":[0,1],"restarts":0,)"
      R"("role":"worker","state":"running"},{"address":"10.0.0.2","index":1,"instance":1,)"
      R"("lastEvent":"started attempt 0","node":"node-1","ranks":[2,3],"restarts":0,)"
      R"("role":"worker","state":"running"},{"address":"10.0.0.3","index":-1,"instance":-1,)"
      R"("lastEvent":"replaced by spare spare-0: failed check burn","node":"node-2",)"
      R"("ranks":[],"restarts":0,"role":"","state":"replaced"},{"address":"10.0.1.1",)"
      R"("index":0,"instance":2,"lastEvent":"started attempt 0","node":"spare-0",)"
      R"("ranks":[4,4],"restarts":0,"role":"ps","state":"running"}],"phase":"running",)"
      R"("type":"status"})");
  StatusReply with_usage{
      "j", "running", {{"n", "a", 0, "w", 0, {0, 0}, "running", 0, "", {}, -1, -1, {}}}};
  with_usage.nodes[0].usage = {{0, 99, 20, 4096, 8192}};
  reply_golden(with_usage,
               R"({"job":"j","nodes":[{"address":"a","index":0,"instance":0,"lastEvent":"",)"
               R"("node":"n","ranks":[0,0],"restarts":0,"role":"w","state":"running",)"
               R"("usage":[{"cpuMs":20,"memoryBytes":4096,"memoryPeakBytes":8192,"pid":99,)"
               R"("rank":0}]}],"phase":"running","type":"status"})");
  StatusReply with_steps{
      "j", "running", {{"n", "a", 0, "w", 0, {0, 0}, "running", 1, "", {}, 1, 61500, {}}}};
  with_steps.nodes[0].telemetry = {RankTelemetry{.rank = 0, .step = 7, .steps = 2}};
  reply_golden(with_steps,
               R"({"job":"j","nodes":[{"address":"a","attempt":1,"elapsedMs":61500,"index":0,)"
               R"("instance":0,"lastEvent":"","node":"n","ranks":[0,0],"restarts":1,"role":"w",)"
               R"("state":"running","telemetry":[{"commUs":0,"entered":0,"exited":0,"lost":0,)"
               R"("op":0,"openMs":-1,"quietMs":-1,"rank":0,"step":7,"stepUs":0,"steps":2,)"
               R"("tcpRetrans":-1,"tcpRttUs":-1,"windowUs":0}]}],"phase":"running",)"
               R"("type":"status"})");
  reply_golden(OkReply{"killing worker-1 on node-1"},
               R"({"text":"killing worker-1 on node-1","type":"ok"})");
  reply_golden(OkReply{"paused by admin-host: stopping 3 instances"},
               R"({"text":"paused by admin-host: stopping 3 instances","type":"ok"})");
  reply_golden(ErrorReply{"no instance named \"worker-9\" in the job"},
               R"({"text":"no instance named \"worker-9\" in the job","type":"error"})");
  reply_golden(NodeExecOutput{"node-0", Stream::Stdout, "GPU 0: H100\n"},
               R"({"data":"R1BVIDA6IEgxMDAK","node":"node-0","stream":"stdout",)"
               R"("type":"exec-output"})");
  reply_golden(NodeExecExit{"node-0", 0}, R"({"code":0,"node":"node-0","type":"exec-exit"})");
  reply_golden(Log{2, 1, "step 10 loss 2.1\n"},
               R"({"data":"c3RlcCAxMCBsb3NzIDIuMQo=","instance":1,"rank":2,"type":"log"})");
  reply_golden(Done{}, R"({"type":"done"})");
  reply_golden(Heartbeat{}, R"({"type":"heartbeat"})");
}

TEST_CASE("optional fields read as their defaults") {
  CHECK(std::get<Exec>(to_node(Json::parse(R"({"type":"exec","id":1,"argv":["true"]})"))) ==
        Exec{1, {"true"}, false});
  CHECK(std::get<ExecStdin>(to_node(Json::parse(R"({"type":"exec-stdin","id":1,"data":""})"))) ==
        ExecStdin{1, "", false});
  CHECK(std::get<Hang>(from_node(
            Json::parse(R"({"type":"hang","instance":2,"exiting":true,"seconds":600})"))) ==
        Hang{2, true, 600, ""});
  // A node without instance: its role, index and ranks are not read.
  const auto reply = parse_control_reply(Json::parse(
      R"({"type":"status","job":"j","phase":"rendezvous","nodes":[{"node":"s","address":"a",)"
      R"("instance":-1,"index":"?","state":"ready","restarts":0,"lastEvent":""}]})"));
  CHECK(std::get<StatusReply>(reply).nodes.at(0) ==
        NodeStatus{"s", "a", -1, "", -1, {}, "ready", 0, "", {}, -1, -1, {}});
}

TEST_CASE("a missing field is refused naming the message and the field") {
  CHECK(error_of(R"({"type":"stopped"})", from_node) == "stopped: instance: missing");
  CHECK(error_of(R"({"type":"join","node":"n","checks":[]})", from_node) == "join: pid: missing");
  CHECK(error_of(R"({"type":"start","instance":0})", to_node) == "start: attempt: missing");
  CHECK(error_of(R"({"type":"kill"})", parse_control_request) == "kill: instance: missing");
  CHECK(error_of(R"({"type":"ok"})", parse_control_reply) == "ok: text: missing");
  CHECK(error_of(R"({"type":"exited","instance":0,"localRank":0,"status":{"code":0,"signal":0},)"
                 R"("classification":{"retryable":true,"reason":"","matchedLine":""},)"
                 R"("stopping":false})",
                 from_node) == "exited.classification: signature: missing");
  CHECK(error_of(R"({"type":"heartbeat","instances":[{"instance":0,"idleMs":1,"hangInterval":1}]})",
                 from_node) == "heartbeat.instances[0]: step: missing");
}

TEST_CASE("a mistyped field is refused naming the message and the field") {
  CHECK(error_of(R"({"type":"heartbeat","instances":"many"})", from_node) ==
        "heartbeat: instances: expected an array");
  CHECK(error_of(R"({"type":"heartbeat","instances":[1]})", from_node) ==
        "heartbeat: instances: expected an array of objects");
  const std::string beat =
      R"({"type":"heartbeat","instances":[{"instance":0,"idleMs":1,"hangInterval":1,"step":0,)";
  CHECK(error_of(beat + R"("ranks":{}}]})", from_node) ==
        "heartbeat.instances[0]: ranks: expected an array");
  CHECK(error_of(beat + R"("ranks":[{"rank":0,"pid":0,"cpuMs":0,"memoryBytes":-1,)"
                        R"("memoryPeakBytes":-1}]}]})",
                 from_node) == "heartbeat.instances[0].ranks[0]: pid: expected a positive integer");
  CHECK(error_of(beat + R"("ranks":[{"rank":0,"pid":1,"cpuMs":-5,"memoryBytes":-1,)"
                        R"("memoryPeakBytes":-1}]}]})",
                 from_node) == "heartbeat.instances[0].ranks[0]: cpuMs: expected a non-negative integer");
  CHECK(error_of(beat + R"("ranks":[{"rank":0,"pid":1,"cpuMs":5,"memoryBytes":-2,)"
                        R"("memoryPeakBytes":-1}]}]})",
                 from_node) ==
        "heartbeat.instances[0].ranks[0]: memoryBytes: expected -1 or a byte count");
  CHECK(error_of(beat + R"("ranks":[{"rank":0,"pid":1,"cpuMs":5,"memoryBytes":1}]}]})",
                 from_node) == "heartbeat.instances[0].ranks[0]: memoryPeakBytes: missing");
  CHECK(error_of(R"({"type":"exited","instance":0,"localRank":0,"status":9})", from_node) ==
        "exited: status: expected an object");
  CHECK(error_of(R"({"type":"exited","instance":0,"localRank":0,"status":{"code":"one"}})",
                 from_node) == "exited.status: code: expected an integer");
  CHECK(error_of(R"({"type":"failure","instance":0,"rank":1,"summary":7})", from_node) ==
        "failure: summary: expected a string");
  const std::string forensics = R"({"type":"forensics","instance":0,"attempt":0,"folder":"f",)";
  CHECK(error_of(R"({"type":"forensics","instance":0,"attempt":0,"folder":"f"})", from_node) ==
        "forensics: ranks: missing");
  CHECK(error_of(forensics + R"("ranks":[7]})", from_node) ==
        "forensics: ranks: expected an array of objects");
  CHECK(error_of(forensics + R"("ranks":[{"rank":1,"place":"inside","frame":""}]})", from_node) ==
        "forensics.ranks[0]: place: expected \"collective\", \"outside\" "
        "or \"unknown\", got \"inside\"");
  CHECK(error_of(forensics + R"("ranks":[{"rank":-1,"place":"outside","frame":""}]})", from_node) ==
        "forensics.ranks[0]: rank: expected a non-negative integer");
  CHECK(error_of(forensics + R"("ranks":[{"rank":1,"place":"outside","frame":")" +
                     std::string(kMaxStackFrame + 1, 'x') + R"("}]})",
                 from_node) == "forensics.ranks[0]: frame: longer than 1024 bytes");
  CHECK(error_of(R"({"type":"forensics","instance":0,"attempt":-1,"folder":"f","ranks":[]})",
                 from_node)
            .starts_with("forensics: attempt: "));
  CHECK_THAT(
      error_of(R"({"type":"join","node":"n","checks":[],"pid":1,"ranAttempt":-1})", from_node),
      Catch::Contains("join: ranAttempt: expected an integer in [0, "));
  CHECK_THAT(
      error_of(R"({"type":"join","node":"n","checks":[],"pid":1,"ranInstance":99})", from_node),
      Catch::Contains("join: ranInstance: expected an integer in [0, "));
  CHECK(error_of(R"({"type":"join","node":"n","checks":{},"pid":1})", from_node) ==
        "join: checks: expected an array");
  CHECK(error_of(R"({"type":"join","node":"n","checks":[],"pid":1,"seal":7})", from_node) ==
        "join: seal: expected a string");
  // The seal is quoted in the coordinator's refusal: only the form of a seal gets that far.
  for (const std::string& seal :
       {std::string("sha256:abc"), std::string(""), "md5:" + std::string(64, 'a'),
        "hmac-sha256:" + std::string(64, 'a') + "\x1b[2J"}) {
    INFO(seal);
    Json join = Json::parse(R"({"type":"join","node":"n","checks":[],"pid":1})");
    join["seal"] = seal;
    CHECK(error_of(join.dump(), from_node) ==
          "join: seal: expected \"hmac-sha256:\" or \"sha256:\" and 64 lowercase hexadecimal "
          "digits");
  }
  CHECK(error_of(R"({"type":"exec-output","id":1,"stream":"stdin","data":""})", from_node) ==
        "exec-output: stream: expected \"stdout\" or \"stderr\", got \"stdin\"");
  CHECK(error_of(R"({"type":"stop","instance":0,"signal":15,"dumpStacks":0,"reason":""})",
                 to_node) == "stop: dumpStacks: expected a boolean");
  CHECK(error_of(R"({"type":"exec","id":1,"argv":["a",1]})", to_node) ==
        "exec: argv: expected an array of strings");
  CHECK(error_of(R"({"type":"assign","instance":0,"hosts":{}})", to_node) ==
        "assign: hosts: expected an array");
  CHECK(error_of(R"({"type":"assign","instance":0,"hosts":[{"instance":-1,"name":"x",)"
                 R"("address":"y","slots":0}]})",
                 to_node) ==
        "assign: hosts: each change needs an instance, a string name and address and an "
        "integer slots");
  CHECK(error_of(R"({"type":"exec-stdin","data":"","eof":"yes"})", parse_control_request) ==
        "exec-stdin: eof: expected a boolean");
  CHECK(error_of(R"({"type":"status","job":"j","phase":"running","nodes":[1]})",
                 parse_control_reply) == "status: nodes[0]: expected an object");
  CHECK(error_of(R"({"type":"status","nodes":[{"instance":0,"role":"w","index":0,"ranks":[2]}]})",
                 parse_control_reply) == "status: nodes[0]: ranks: expected [first, last]");
  CHECK(error_of(R"([1,2])", from_node) ==
        "message: expected a JSON object with a string \"type\"");
}

TEST_CASE("an out-of-range integer is refused with the range") {
  CHECK(error_of(R"({"type":"stopped","instance":3})", from_node) ==
        "stopped: instance: expected an integer in [0, 2], got 3");
  CHECK(error_of(R"({"type":"hang","instance":0,"exiting":true,"seconds":-1})", from_node) ==
        "hang: seconds: expected a non-negative integer");
  CHECK(error_of(R"({"type":"heartbeat","instances":[{"instance":0,"idleMs":-1}]})", from_node) ==
        "heartbeat.instances[0]: idleMs: expected a non-negative integer");
  CHECK(error_of(R"({"type":"stop","instance":0,"signal":65,"dumpStacks":false,"reason":""})",
                 to_node) == "stop: signal: expected an integer in [1, 64], got 65");
  CHECK(error_of(R"({"type":"run-checks","attempt":2000000})", to_node) ==
        "run-checks: attempt: expected an integer in [0, 1048576], got 2000000");
  CHECK(error_of(R"({"type":"assign","instance":3,"hosts":[]})", to_node) ==
        "assign: instance: expected an integer in [0, 2], got 3");
  CHECK(error_of(R"({"type":"finish","exitCode":256,"reason":""})", to_node) ==
        "finish: exitCode: expected an integer in [0, 255], got 256");
  CHECK(error_of(R"({"type":"logs","rank":-2,"follow":false,"tail":0})", parse_control_request) ==
        "logs: rank: expected an integer in [-1, 2147483647], got -2");
  CHECK(error_of(R"({"type":"logs","rank":0,"follow":false,"tail":-1})", parse_control_request) ==
        "logs: tail: expected a non-negative integer");
  CHECK(error_of(R"({"type":"logs","rank":0,"follow":false,"tail":0,"lines":-1})",
                 parse_control_request) ==
        "logs: lines: expected an integer in [0, 2147483647], got -1");
  CHECK(error_of(R"({"type":"subscribe-logs","rank":0,"tail":0,"lines":"10"})", to_node) ==
        "subscribe-logs: lines: expected an integer");
  CHECK(error_of(R"({"type":"exec-exit","node":"n","code":-2})", parse_control_reply) ==
        "exec-exit: code: expected an integer in [-1, 1048576], got -2");
}

TEST_CASE("bad base64 in a data field is refused") {
  CHECK(error_of(R"({"type":"exec-output","id":1,"stream":"stdout","data":"abc"})", from_node) ==
        "exec-output: data: invalid base64: length 3 is not a multiple of 4");
  CHECK(error_of(R"({"type":"log","rank":0,"instance":0,"data":"a*=="})", from_node) ==
        "log: data: invalid base64: unexpected character at offset 1");
  CHECK(error_of(R"({"type":"exec-stdin","data":"aGl=","eof":false})", parse_control_request) ==
        "exec-stdin: data: invalid base64: non-zero padding bits");
  CHECK(error_of(R"({"type":"exec-stdin","id":1,"data":"!!!!"})", to_node) ==
        "exec-stdin: data: invalid base64: unexpected character at offset 0");
}

TEST_CASE("an unknown type is refused as each direction always did") {
  CHECK(error_of(R"({"type":"teleport"})", from_node) == "teleport: type: not a launcher message");
  CHECK(error_of(R"({"type":"status"})", from_node) == "status: type: not a launcher message");
  CHECK(error_of(R"({"type":"teleport"})", to_node) == "teleport: type: unknown message type");
  CHECK(error_of(R"({"type":"join","node":"x"})", parse_control_request) ==
        "join: type: not a control request");
  CHECK(error_of(R"({"type":"teleport"})", parse_control_reply) ==
        "unexpected message \"teleport\"");
}

TEST_CASE("a well-formed message wrong where it arrived fails naming it") {
  try {
    fail(NodeToCoordinator{Stopped{1}}, "instance", "node node-0 does not run instance 1");
  } catch (const ProtocolError& e) {
    CHECK(std::string(e.what()) == "stopped: instance: node node-0 does not run instance 1");
    return;
  }
  FAIL("fail() returned");
}

TEST_CASE("a status node's attempt - elapsed time and telemetry are checked like a heartbeat's") {
  auto status_with = [](const std::string& fields) {
    return R"({"type":"status","job":"j","phase":"running","nodes":[{"node":"n","address":"a",)"
           R"("instance":0,"role":"w","index":0,"ranks":[0,0],"state":"running","restarts":0,)"
           R"("lastEvent":"")" +
           fields + "}]}";
  };
  CHECK(error_of(status_with(R"(,"attempt":-1)"), parse_control_reply) ==
        "status: nodes[0]: attempt: expected an integer in [0, 2147483647], got -1");
  CHECK(error_of(status_with(R"(,"elapsedMs":-5)"), parse_control_reply) ==
        "status: nodes[0]: elapsedMs: expected a non-negative integer");
  CHECK(error_of(status_with(R"(,"telemetry":[{"rank":0,"step":1,"steps":1,"stepUs":1,)"
                             R"("windowUs":10,"commUs":99,"entered":0,"exited":0,"openMs":-1,)"
                             R"("op":0,"quietMs":-1,"lost":0,"tcpRttUs":-1,"tcpRetrans":-1}])"),
                 parse_control_reply) ==
        "status: nodes[0].telemetry[0]: commUs: expected at most windowUs");
  CHECK(error_of(status_with(R"(,"telemetry":"lots")"), parse_control_reply) ==
        "status: nodes[0]: telemetry: expected an array");
}

}  // namespace protocol_test
