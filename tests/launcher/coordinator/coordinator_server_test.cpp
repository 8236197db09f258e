#include "launcher/coordinator/coordinator_server.h"

#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coordinator_server_harness.h"
#include "launcher/net/heartbeat_rhythm.h"

namespace coordinator_server_test {

using namespace pai::testing;
using pai::launcher::coordinator::CoordinatorServer;
using pai::net::FrameKind;

namespace {

// Joins node-0..node-2 and checks each gets its own instance and no host changes.
void join_all_and_assign(int port) {
  std::vector<std::unique_ptr<pai::net::Client>> launchers;
  for (int i = 0; i < 3; ++i) launchers.push_back(join(port, i));
  for (int i = 0; i < 3; ++i) {
    Json assign = await(*launchers[i], "assign");
    CHECK(assign.at("instance") == i);
    // Every node is where the plan put it: no host changes travel.
    CHECK(assign.at("hosts") == Json::array());
  }
}

// The flood test holds about 1,000 descriptors in this one process (both ends).
void raise_descriptor_limit() {
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_cur < 4096 && limit.rlim_max > limit.rlim_cur) {
    limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, 4096);
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
  }
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  REQUIRE(limit.rlim_cur >= 1100);
}

// The connections counted in "connections-refused" records that `match`.
std::size_t refused_count(Journal& journal,
                          const std::function<bool(const Record&)>& match = nullptr) {
  std::size_t count = 0;
  for (const auto& record : journal.all("connections-refused")) {
    if (!match || match(record)) count += record.fields.at("count").get<std::size_t>();
  }
  return count;
}

// Whether the records count at least `count` refused connections within `timeout` (they
// come at most once a second).
bool wait_refused(Journal& journal, std::size_t count,
                  const std::function<bool(const Record&)>& match = nullptr,
                  std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (refused_count(journal, match) < count) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// The handshake frame `frame` with a string of `padding` bytes added to its body: still valid,
// only larger (the proofs do not cover the body).
std::string padded(const std::string& frame, std::size_t padding) {
  pai::net::FrameDecoder decoder;
  decoder.feed(frame.data(), frame.size());
  pai::net::Frame decoded;
  REQUIRE(decoder.next(decoded));
  Json body = Json::parse(decoded.body);
  body["padding"] = std::string(padding, 'p');
  return pai::net::encode_frame(decoded.kind, 0, body.dump());
}

}  // namespace

TEST_CASE("three launchers join and each receives its assign") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));
  REQUIRE(server.port() > 0);
  join_all_and_assign(server.port());
  CHECK(journal.all("connection-rejected").empty());
}

TEST_CASE("a wrong token is rejected and the others are served on") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));

  // The client checks the server's proof first and hangs up: it never talks to a coordinator
  // that does not know its token.
  try {
    pai::net::Client intruder(
        client_options(server.port(), "launcher", "node-1", "127.0.0.9", "wrong-token"));
    FAIL("a client with a wrong token was accepted");
  } catch (const pai::net::ConnectionError& e) {
    CHECK_THAT(e.what(), Catch::Contains("the coordinator does not know the job token"));
  }
  auto hung_up = journal.wait_for("connections-refused", from_address("127.0.0.9"));
  REQUIRE(hung_up);
  CHECK(hung_up->fields.at("reason") == "closed during the handshake");
  CHECK(hung_up->fields.at("count") == 1);

  // A client that sends a proof made without the token is told so.
  RawConnection forger(server.port(), "127.0.0.8");
  pai::net::ClientHandshake handshake("wrong-token", "test-job", {"launcher", "node-1"});
  REQUIRE(forger.write(handshake.hello()));
  auto challenge = forger.read_frame();
  REQUIRE(challenge);
  CHECK(challenge->kind == FrameKind::Challenge);
  REQUIRE(forger.write(
      pai::net::encode_frame(FrameKind::Auth, 0, Json{{"proof", std::string(64, '0')}}.dump())));
  auto reject = forger.read_frame();
  REQUIRE(reject);
  CHECK(reject_reason(*reject) == "authentication failed: the client does not know the job token");
  CHECK(forger.closed_by_server());
  auto forged = journal.wait_for("connections-refused", from_address("127.0.0.8"));
  REQUIRE(forged);
  CHECK(forged->fields.at("reason") ==
        "authentication failed: the client does not know the job token");

  join_all_and_assign(server.port());
}

TEST_CASE("a replayed frame closes only its connection") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));

  RawConnection spare(server.port(), "127.0.1.1");
  auto channel = spare.handshake({"launcher", "spare-0"});
  std::string sealed_join = channel.seal(
      Json{{"type", "join"}, {"node", "spare-0"}, {"checks", Json::array()}, {"pid", 7}});
  REQUIRE(spare.write(sealed_join));
  REQUIRE(spare.write(sealed_join));
  CHECK(spare.closed_by_server());
  auto replay = journal.wait_for("connection-rejected", from_address("127.0.1.1"));
  REQUIRE(replay);
  CHECK(replay->fields.at("reason") ==
        "sealed frame with sequence number 1, expected 2 (replayed, reordered or lost frame)");
  CHECK(replay->fields.at("node") == "spare-0");

  join_all_and_assign(server.port());
}

TEST_CASE("bad frames are answered with a reject and closed") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));
  std::string why;
  std::string bytes;
  SECTION("oversized header") {
    bytes = frame_header(2u << 20, pai::net::kProtocolVersion, 1);
    why = "frame body of 2097152 bytes is over the limit of 1048576";
  }
  SECTION("an oversized handshake frame") {
    bytes = frame_header(100000, pai::net::kProtocolVersion, 1) + std::string(20000, 'x');
    why = "handshake over 16384 bytes";
  }
  SECTION("unknown kind") {
    bytes = frame_header(2, pai::net::kProtocolVersion, 99) + "{}";
    why = "unknown frame kind 99";
  }
  SECTION("garbage bytes") {
    bytes = "GET / HTTP/1.1\r\nHost: coordinator\r\n\r\n";
    why = "unsupported protocol version 47 (expected 1)";
  }
  SECTION("a sealed frame before the handshake") {
    bytes = pai::net::encode_frame(FrameKind::Sealed, 1, "{}", std::string(32, 'm'));
    why = "unexpected sealed frame to start the handshake (expected hello)";
  }
  RawConnection peer(server.port(), "127.0.0.7");
  REQUIRE(peer.write(bytes));
  auto reject = peer.read_frame();
  REQUIRE(reject);
  CHECK(reject_reason(*reject) == why);
  CHECK(peer.closed_by_server());
  auto record = journal.wait_for("connections-refused", from_address("127.0.0.7"));
  REQUIRE(record);
  CHECK(record->fields == Json{{"address", "127.0.0.7"}, {"count", 1}, {"reason", why}});
  CHECK(record->line == "refused 1 connection from 127.0.0.7: " + why);

  join_all_and_assign(server.port());
}

TEST_CASE("a truncated frame is rejected before and after the handshake") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));

  RawConnection early(server.port(), "127.0.0.7");
  REQUIRE(early.write(frame_header(100, pai::net::kProtocolVersion, 1) + "{\"job\":"));
  early.shutdown_write();
  auto reject = early.read_frame();
  REQUIRE(reject);
  CHECK(reject_reason(*reject) == "truncated frame");
  auto before = journal.wait_for("connections-refused", from_address("127.0.0.7"));
  REQUIRE(before);
  CHECK(before->fields.at("reason") == "truncated frame");

  RawConnection late(server.port(), "127.0.0.1");
  auto channel = late.handshake({"launcher", "node-0"});
  std::string sealed = channel.seal(
      Json{{"type", "join"}, {"node", "node-0"}, {"checks", Json::array()}, {"pid", 7}});
  REQUIRE(late.write(sealed.substr(0, sealed.size() - 5)));
  late.shutdown_write();
  CHECK(late.closed_by_server());
  auto after = journal.wait_for("connection-rejected", from_address("127.0.0.1"));
  REQUIRE(after);
  CHECK(after->fields.at("reason") == "truncated frame");
  CHECK(after->fields.at("node") == "node-0");
}

TEST_CASE("silent connections within the limits are left alone") {
  raise_descriptor_limit();
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));
  // 500 from 10 addresses: 50 each, under the 64 allowed per address.
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 500; ++i) {
    flood.push_back(
        std::make_unique<RawConnection>(server.port(), "127.0.2." + std::to_string(i % 10 + 1)));
  }
  join_all_and_assign(server.port());
  CHECK(journal.all("connections-refused").empty());
  for (const auto& silent : flood) CHECK_FALSE(silent->closed_by_server(1ms));
}

TEST_CASE("idle sockets from one address do not keep out clients of that address or another") {
  raise_descriptor_limit();
  Journal journal;
  auto options = server_options(journal);
  // Below the flood, so that the total cap is reached too if nothing else holds it.
  options.max_unauthenticated = 200;
  CoordinatorServer server(loopback_plan(), options);

  // node-0's own address.
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 250; ++i) {
    flood.push_back(std::make_unique<RawConnection>(server.port(), node_address(0)));
  }
  // A control client of the same address and of another, then every launcher.
  for (const auto& address : {node_address(0), std::string("127.0.0.9")}) {
    pai::net::Client control(client_options(server.port(), "control", "laptop", address));
    control.send(Json{{"type", "status"}});
    CHECK(await(control, "status").at("phase") == "rendezvous");
  }
  join_all_and_assign(server.port());

  const std::string evicted =
      "evicted by a newer connection: at most 64 unauthenticated connections per address";
  // Accepted in order, 64 held at most: the oldest 186 made room for newer ones of the flood,
  // the next for the control client of 127.0.0.1. The launcher of that address then took the
  // slot the control client freed when it authenticated.
  for (int i = 0; i < 187; ++i) {
    // Closed without a frame: a launcher retries.
    CHECK_FALSE(flood[i]->read_frame(2s));
    CHECK(flood[i]->eof());
  }
  for (int i = 187; i < 250; ++i) CHECK_FALSE(flood[i]->closed_by_server(1ms));
  CHECK(wait_refused(journal, 187, from_address(node_address(0))));
  CHECK(refused_count(journal) == 187);
  for (const auto& record : journal.all("connections-refused")) {
    CHECK(record.fields.at("reason") == evicted);
  }
}

TEST_CASE("at the total limit the address holding the most gives up its oldest connection") {
  Journal journal;
  auto options = server_options(journal);
  options.max_unauthenticated = 10;
  CoordinatorServer server(loopback_plan(), options);
  auto idle = [&](const std::string& address) {
    return std::make_unique<RawConnection>(server.port(), address);
  };

  std::vector<std::unique_ptr<RawConnection>> busy;   // 127.0.2.1
  std::vector<std::unique_ptr<RawConnection>> quiet;  // 127.0.2.2, the oldest of all first
  std::vector<std::unique_ptr<RawConnection>> late;   // 127.0.2.3
  quiet.push_back(idle("127.0.2.2"));
  for (int i = 0; i < 6; ++i) busy.push_back(idle("127.0.2.1"));
  for (int i = 0; i < 3; ++i) quiet.push_back(idle("127.0.2.2"));

  // 10 held: a control client makes room (busy[0]), authenticates and is served.
  pai::net::Client control(client_options(server.port(), "control", "laptop", "127.0.0.9"));
  control.send(Json{{"type", "status"}});
  CHECK(await(control, "status").at("phase") == "rendezvous");
  // Back at 10; then busy[1] goes (5 against 4), quiet[0] (4 each, it is the older) and,
  // for a launcher, busy[2] (4 against 3 and 3).
  for (int i = 0; i < 3; ++i) late.push_back(idle("127.0.2.3"));
  auto launcher = join(server.port(), 0);

  const std::string evicted =
      "evicted by a newer connection: at most 10 unauthenticated connections";
  for (RawConnection* gone : {busy[0].get(), busy[1].get(), quiet[0].get(), busy[2].get()}) {
    CHECK_FALSE(gone->read_frame(2s));
    CHECK(gone->eof());
  }
  for (int i = 3; i < 6; ++i) CHECK_FALSE(busy[i]->closed_by_server(10ms));
  for (int i = 1; i < 4; ++i) CHECK_FALSE(quiet[i]->closed_by_server(10ms));
  for (const auto& waiting : late) CHECK_FALSE(waiting->closed_by_server(10ms));
  CHECK_FALSE(closed_by_server(*launcher, 10ms));

  CHECK(wait_refused(journal, 4));
  CHECK(refused_count(journal, from_address("127.0.2.1")) == 3);
  CHECK(refused_count(journal, from_address("127.0.2.2")) == 1);
  for (const auto& record : journal.all("connections-refused")) {
    CHECK(record.fields.at("reason") == evicted);
  }
}

TEST_CASE("the limit of unauthenticated connections is at least twice the plan's machines") {
  Journal journal;
  auto options = server_options(journal);
  options.max_unauthenticated = 1;  // 3 hosts and a spare: 8 may handshake at once
  CoordinatorServer server(loopback_plan(), options);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 1; i <= 9; ++i) {
    held.push_back(std::make_unique<RawConnection>(server.port(), "127.0.2." + std::to_string(i)));
  }
  // The 9th evicted the oldest; the other eight stay.
  CHECK_FALSE(held[0]->read_frame(2s));
  CHECK(held[0]->eof());
  for (int i = 1; i < 9; ++i) CHECK_FALSE(held[i]->closed_by_server(1ms));
  CHECK(wait_refused(journal, 1));
  CHECK(refused_count(journal) == 1);
}

TEST_CASE("many bad handshakes are journaled as a bounded number of counts") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));
  const std::string why = "unsupported protocol version 47 (expected 1)";
  auto begin = std::chrono::steady_clock::now();
  // 300 from one address, then 5 from each of 20 others: more addresses than a round lists.
  std::size_t sent = 0;
  auto garbage = [&](const std::string& address) {
    RawConnection peer(server.port(), address);
    REQUIRE(peer.write("GET / HTTP/1.1\r\n\r\n"));
    REQUIRE(peer.closed_by_server());
    ++sent;
  };
  for (int i = 0; i < 300; ++i) garbage("127.0.0.7");
  for (int a = 1; a <= 20; ++a) {
    for (int i = 0; i < 5; ++i) garbage("127.0.3." + std::to_string(a));
  }
  REQUIRE(wait_refused(journal, sent));
  auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - begin)
          .count();

  auto records = journal.all("connections-refused");
  // At most one round a second, the first at once; at most 16 listed and one sum each.
  CHECK(records.size() <= 17 * static_cast<std::size_t>(seconds + 2));
  CHECK(records.size() < 40);
  for (const auto& record : records) {
    if (record.fields.contains("address")) CHECK(record.fields.at("reason") == why);
  }
  std::this_thread::sleep_for(1200ms);
  CHECK(refused_count(journal) == sent);
  CHECK(journal.all("connection-rejected").empty());
  join_all_and_assign(server.port());
}

TEST_CASE("a client that sends more than 16 KiB before it is welcomed is dropped") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));
  RawConnection peer(server.port(), "127.0.0.7");
  pai::net::ClientHandshake handshake(kToken, "test-job", {"control", "laptop"});
  SECTION("a hello and an auth of 9 KiB each") {
    REQUIRE(peer.write(padded(handshake.hello(), 9 << 10)));
    auto challenge = peer.read_frame();
    REQUIRE(challenge);
    std::string auth = handshake.on_frame(*challenge);
    REQUIRE(peer.write(padded(auth, 9 << 10)));
  }
  SECTION("a hello of 40 KiB") { REQUIRE(peer.write(padded(handshake.hello(), 40 << 10))); }
  auto reject = peer.read_frame();
  REQUIRE(reject);
  CHECK(reject_reason(*reject) == "handshake over 16384 bytes");
  CHECK(peer.closed_by_server());
  auto record = journal.wait_for("connections-refused", from_address("127.0.0.7"));
  REQUIRE(record);
  CHECK(record->fields.at("reason") == "handshake over 16384 bytes");
}

TEST_CASE("a connection closed before sending anything is a port probe - not a refusal") {
  Journal journal;
  CoordinatorServer server(loopback_plan(), server_options(journal));
  { RawConnection probe(server.port(), "127.0.0.6"); }  // a network check: connect, close
  auto record = journal.wait_for("port-probes", from_address("127.0.0.6"));
  REQUIRE(record);
  CHECK(record->fields.at("reason") == "closed before sending anything");
  CHECK(record->fields.at("count") == 1);
  CHECK(journal.all("connections-refused").empty());
}

TEST_CASE("refusals still waiting for their round are journaled when the server stops") {
  Journal journal;
  {
    CoordinatorServer server(loopback_plan(), server_options(journal));
    { RawConnection probe(server.port(), "127.0.0.6"); }
    REQUIRE(journal.wait_for("port-probes", from_address("127.0.0.6")));
    // The next ones wait for the round a second later, which never comes.
    { RawConnection probe(server.port(), "127.0.0.6"); }
    { RawConnection probe(server.port(), "127.0.0.6"); }
    std::this_thread::sleep_for(500ms);
  }
  std::int64_t count = 0;
  for (const auto& record : journal.all("port-probes"))
    count += record.fields.at("count").get<std::int64_t>();
  CHECK(count == 3);
}

TEST_CASE("a handshake that does not finish in time is rejected") {
  Journal journal;
  auto options = server_options(journal);
  options.handshake_timeout = 200ms;
  CoordinatorServer server(loopback_plan(), options);

  RawConnection silent(server.port(), "127.0.0.7");
  RawConnection halfway(server.port(), "127.0.0.8");
  pai::net::ClientHandshake handshake(kToken, "test-job", {"launcher", "node-0"});
  REQUIRE(halfway.write(handshake.hello()));
  auto challenge = halfway.read_frame();
  REQUIRE(challenge);
  CHECK(challenge->kind == FrameKind::Challenge);

  for (RawConnection* peer : {&silent, &halfway}) {
    auto reject = peer->read_frame(3s);
    REQUIRE(reject);
    CHECK(reject_reason(*reject) == "no handshake within 0.2s");
    CHECK(peer->closed_by_server());
  }
  for (const char* address : {"127.0.0.7", "127.0.0.8"}) {
    auto record = journal.wait_for("connections-refused", from_address(address));
    REQUIRE(record);
    CHECK(record->fields.at("reason") == "no handshake within 0.2s");
  }
}

TEST_CASE("a launcher that stops sending heartbeats is disconnected - control clients are not") {
  Journal journal;
  auto options = server_options(journal);
  options.settings.heartbeat_interval = 100ms;
  CoordinatorServer server(loopback_plan(), options);

  pai::net::Client control(client_options(server.port(), "control", "laptop", "127.0.0.9"));
  auto quiet = join(server.port(), 0);
  auto joined = std::chrono::steady_clock::now();
  auto beating = join(server.port(), 1);

  bool quiet_closed = false;
  auto deadline = joined + 3s;
  while (!quiet_closed && std::chrono::steady_clock::now() < deadline) {
    beating->send(Json{{"type", "heartbeat"}, {"instances", Json::array()}});
    quiet_closed = closed_by_server(*quiet, 50ms);
  }
  REQUIRE(quiet_closed);
  CHECK(std::chrono::steady_clock::now() - joined >= pai::net::kHeartbeatMisses * 100ms - 50ms);

  // The one that beats and the silent control client stay.
  for (int i = 0; i < 10; ++i) {
    beating->send(Json{{"type", "heartbeat"}, {"instances", Json::array()}});
    CHECK_FALSE(closed_by_server(*beating, 50ms));
  }
  CHECK_FALSE(closed_by_server(control, 10ms));
  CHECK(journal.all("connection-rejected").empty());
  auto lost = journal.wait_for("disconnected");
  REQUIRE(lost);
  CHECK(lost->fields.at("node") == "node-0");
  CHECK(lost->fields.at("reason") == "no heartbeat for 0.5s");
}

TEST_CASE(
    "every other launcher silent at once while its own beats: the coordinator's node is cut off") {
  // Its node cut off, the coordinator hears only the launcher beside it: it says so, and
  // neither blames the other nodes as lost nor journals restarts that cannot happen.
  Journal journal;
  auto options = server_options(journal);
  options.settings.heartbeat_interval = 100ms;
  const pai::Plan plan = loopback_plan();
  REQUIRE(plan.coordinator.host == "node-0");
  CoordinatorServer server(plan, options);
  auto own = join(server.port(), 0);
  auto second = join(server.port(), 1);
  auto third = join(server.port(), 2);
  await(*own, "start");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  std::optional<Json> finish;
  while (!finish && std::chrono::steady_clock::now() < deadline) {
    own->send(Json{{"type", "heartbeat"}, {"instances", Json::array()}});
    auto message = own->receive(50ms);
    if (message && message->value("type", "") == "finish") finish = message;
  }
  REQUIRE(finish);
  INFO(finish->dump());
  CHECK(finish->at("exitCode") == 1);
  CHECK(finish->at("reason") ==
        "every other node went silent at once (no heartbeat for 0.5s from node-1 and node-2) "
        "while this node's launcher is heard: the coordinator's node node-0 is cut off from "
        "them (or they all failed together); nothing can be restarted from here");
  CHECK(server.wait(5s) == 1);
  CHECK(journal.all("node-lost").empty());
  CHECK(journal.all("restart").empty());
  CHECK(journal.all("job-failed").size() == 1);
}

TEST_CASE(
    "one of several launchers silent is lost as before - its node and not the coordinator's") {
  Journal journal;
  auto options = server_options(journal);
  options.settings.heartbeat_interval = 100ms;
  CoordinatorServer server(loopback_plan(), options);
  auto own = join(server.port(), 0);
  auto second = join(server.port(), 1);
  auto quiet = join(server.port(), 2);
  await(*own, "start");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  bool lost = false;
  while (!lost && std::chrono::steady_clock::now() < deadline) {
    for (auto* beating : {own.get(), second.get()}) {
      beating->send(Json{{"type", "heartbeat"}, {"instances", Json::array()}});
    }
    lost = closed_by_server(*quiet, 50ms);
  }
  REQUIRE(lost);
  auto record = journal.wait_for("node-lost");
  REQUIRE(record);
  CHECK(record->fields.at("node") == "node-2");
  CHECK(journal.all("job-failed").empty());
}

TEST_CASE("wait returns the job's exit code once the machine finished") {
  Journal journal;
  auto options = server_options(journal);
  SECTION("every instance succeeded") {
    CoordinatorServer server(loopback_plan(), options);
    CHECK(server.wait(10ms) == -1);
    std::vector<std::unique_ptr<pai::net::Client>> launchers;
    for (int i = 0; i < 3; ++i) launchers.push_back(join(server.port(), i));
    for (int i = 0; i < 3; ++i) {
      CHECK(await(*launchers[i], "start").at("instance") == i);
    }
    for (int i = 0; i < 3; ++i) {
      launchers[i]->send(Json{{"type", "exited"},
                              {"instance", i},
                              {"localRank", 0},
                              {"status", {{"code", 0}, {"signal", 0}}},
                              {"classification",
                               {{"retryable", false},
                                {"reason", "exited with code 0"},
                                {"matchedLine", ""},
                                {"signature", ""}}},
                              {"stopping", false}});
      launchers[i]->send(Json{{"type", "stopped"}, {"instance", i}});
    }
    CHECK(server.wait(5s) == 0);
    // The finish messages were flushed before the server stopped.
    for (auto& launcher : launchers) {
      CHECK(await(*launcher, "finish").at("exitCode") == 0);
      CHECK(closed_by_server(*launcher, 2s));
    }
    CHECK(journal.wait_for("job-succeeded", nullptr, 0ms));
  }
  SECTION("the rendezvous timed out") {
    options.settings.rendezvous_timeout = 200ms;
    CoordinatorServer server(loopback_plan(), options);
    auto lonely = join(server.port(), 0);
    CHECK(server.wait(5s) == 1);
    Json finish = await(*lonely, "finish");
    CHECK(finish.at("exitCode") == 1);
    CHECK(closed_by_server(*lonely, 2s));
    // No longer listening.
    CHECK_THROWS_AS(join(server.port(), 1), pai::net::ConnectionError);
  }
}

TEST_CASE("a control client that does not read is dropped") {
  Journal journal;
  auto options = server_options(journal);
  options.max_queued_output = 64 << 10;
  CoordinatorServer server(loopback_plan(), options);

  RawConnection control(server.port(), "127.0.0.9");
  auto channel = control.handshake({"control", "laptop"});
  // Each status answer is far larger than its request; the socket buffers fill, then the
  // server's queue grows past its limit.
  bool dropped = false;
  for (int i = 0; i < 100000 && !dropped; ++i) {
    if (!control.write(channel.seal(Json{{"type", "status"}}))) break;
    if (i % 1000 == 999) dropped = !journal.all("connection-dropped").empty();
  }
  auto record = journal.wait_for("connection-dropped");
  REQUIRE(record);
  CHECK(record->fields.at("address") == "127.0.0.9");
  CHECK(record->fields.at("node") == "laptop");
  CHECK(record->fields.at("reason") == "more than 64 KiB of output queued: the peer does not read");
  join_all_and_assign(server.port());
}

TEST_CASE("the listen address must be free and valid - a taken port names portRange") {
  Journal journal;
  CoordinatorServer first(loopback_plan(), server_options(journal));
  auto options = server_options(journal);
  options.port = first.port();
  try {
    CoordinatorServer second(loopback_plan(), options);
    FAIL("a second server listened on a port in use");
  } catch (const std::runtime_error& e) {
    // The way out is named: the job spec's portRange.
    CHECK(std::string(e.what()) == "cannot listen on 127.0.0.1:" + std::to_string(first.port()) +
                                       ": Address already in use (another job on this node? "
                                       "this job's ports come from portRange 20000-29999: set "
                                       "portRange.min and portRange.max in the job spec to a "
                                       "range no other job here uses)");
  }
  options.listen_address = "coordinator.invalid";
  options.port = 0;
  CHECK_THROWS_WITH(CoordinatorServer(loopback_plan(), options),
                    "cannot listen on coordinator.invalid:0: Invalid argument");
}

TEST_CASE("without a record sink the server still serves") {
  pai::launcher::coordinator::ServerOptions options;
  options.listen_address = "127.0.0.1";
  options.token = kToken;
  CoordinatorServer server(loopback_plan(), options);
  RawConnection garbage(server.port());
  REQUIRE(garbage.write("garbage bytes, not a frame"));
  CHECK(garbage.closed_by_server());
  join_all_and_assign(server.port());
}

}  // namespace coordinator_server_test
