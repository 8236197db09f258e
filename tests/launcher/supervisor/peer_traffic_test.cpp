// One rank's links summarized a window at a time (launcher/supervisor/peer_traffic.h): tables
// written slot by slot at chosen times, read as windows of bytes, busy time and stalls; the
// order of the list; counters that go back; tables that are missing, torn or break.
#include "launcher/supervisor/peer_traffic.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "launcher/supervisor/peer_table_fixture.h"
#include "launcher/supervisor/telemetry_ring.h"
#include "support/temp_dir.h"

namespace peer_traffic_test {

using namespace pai::launcher;
using pai::testing::spit;
using pai::testing::TempDir;
using peer_table_fixture::link;
using peer_table_fixture::TableWriter;

namespace {

constexpr int kSend = PAI_TELEMETRY_PEER_SEND;
constexpr int kRecv = PAI_TELEMETRY_PEER_RECV;
constexpr std::int64_t kMs = 1'000'000;

// A link's slot with `bytes` done in `busy_ms` ms of busy time, none in flight.
pai_telemetry_peer done(int peer, int direction, std::uint64_t bytes, std::uint64_t busy_ms) {
  pai_telemetry_peer p = link(peer, direction);
  p.bytes = bytes;
  p.transfers = bytes / 100;
  p.busy_ns = busy_ms * kMs;
  p.last_done_ns = 1;
  return p;
}

// A link's slot with transfers in flight since `since_ms` and none done since `done_ms`.
pai_telemetry_peer in_flight(int peer, int direction, std::uint64_t since_ms,
                             std::uint64_t done_ms = 0) {
  pai_telemetry_peer p = link(peer, direction);
  p.in_flight = 3;
  p.busy_since_ns = since_ms * kMs;
  p.last_done_ns = done_ms * kMs;
  return p;
}

PeerLinkSummary figures(int peer, int direction, std::int64_t bytes, std::int64_t busy_us,
                        std::int64_t stalled_ms = -1) {
  return PeerLinkSummary{peer, direction, bytes, busy_us, stalled_ms};
}

// Rank 3's table at dir/t.peers with its writer's mapping.
struct Table {
  explicit Table(const TempDir& dir, std::uint32_t slots = 64) : path(dir / "t.peers") {
    create_peer_table(path, 3, slots);
  }
  std::string path;
};

}  // namespace

TEST_CASE("a window gives each link's bytes and busy time since the previous one") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  writer.set(0, done(1, kSend, 1000, 4));
  writer.set(1, done(2, kRecv, 3000, 10));
  auto window = traffic.window(100 * kMs);
  REQUIRE(window);
  CHECK(window->active == 2);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 1000, 4000),
                                                      figures(2, kRecv, 3000, 10000)});

  writer.set(0, done(1, kSend, 5000, 6));
  window = traffic.window(200 * kMs);
  REQUIRE(window);
  CHECK(window->active == 1);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 4000, 2000)});

  window = traffic.window(300 * kMs);
  REQUIRE(window);
  CHECK(window->active == 0);
  CHECK(window->links.empty());
}

TEST_CASE("an open busy interval counts up to the window's end, the rest in the next") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  writer.set(0, in_flight(1, kSend, 150));
  auto window = traffic.window(200 * kMs);
  REQUIRE(window);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 0, 50'000, 50)});

  // Done at 260 ms: busy from 150 to 260.
  pai_telemetry_peer p = done(1, kSend, 100, 110);
  p.last_done_ns = 260 * kMs;
  writer.set(0, p);
  window = traffic.window(300 * kMs);
  REQUIRE(window);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 100, 60'000)});
}

TEST_CASE("a stall of kStalledMs puts a link first - before the slowest of eight others") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  // Receives from 9 posted at 0 ms, nothing arrived since; 8 sends busy all along.
  writer.set(0, in_flight(9, kRecv, 0));
  for (int peer = 0; peer < 8; ++peer) writer.set(peer + 1, done(peer, kSend, 1000, 1));
  auto window = traffic.window(999 * kMs);
  REQUIRE(window);
  CHECK(window->active == 9);
  REQUIRE(window->links.size() == PeerTraffic::kMaxLinks);
  for (const auto& l : window->links) CHECK(l.peer != 9);  // not a stall yet: last, cut

  for (int peer = 0; peer < 8; ++peer) writer.set(peer + 1, done(peer, kSend, 2000, 2));
  window = traffic.window(1500 * kMs);
  REQUIRE(window);
  REQUIRE(window->links.size() == PeerTraffic::kMaxLinks);
  CHECK(window->links[0] == figures(9, kRecv, 0, 501'000, 1500));
  CHECK(window->links[1] == figures(0, kSend, 1000, 1000));
  CHECK(window->links[7] == figures(6, kSend, 1000, 1000));

  // A completion at 1600 ms ends the stall; transfers still in flight since.
  writer.set(0, in_flight(9, kRecv, 0, 1600));
  window = traffic.window(1700 * kMs);
  REQUIRE(window);
  CHECK(window->links.back() == figures(9, kRecv, 0, 200'000, 100));
}

TEST_CASE("links are listed slowest first: sends, then receives, then those only in flight") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  writer.set(0, done(1, kSend, 10'000, 1));  // 10 bytes/us
  writer.set(1, done(2, kSend, 1'000, 1));   // 1
  writer.set(2, done(3, kRecv, 500, 1));     // 0.5: slower, but a receive waits for its peer
  writer.set(3, done(4, kSend, 5'000, 1));   // 5
  writer.set(4, done(5, kRecv, 2'000, 1));   // 2
  writer.set(5, in_flight(6, kSend, 90));    // nothing done in the window
  writer.set(6, done(7, kSend, 300, 0));     // no busy time counted: fastest of all
  auto window = traffic.window(100 * kMs);
  REQUIRE(window);
  CHECK(window->links == std::vector<PeerLinkSummary>{
                             figures(2, kSend, 1'000, 1'000), figures(4, kSend, 5'000, 1'000),
                             figures(1, kSend, 10'000, 1'000), figures(7, kSend, 300, 0),
                             figures(3, kRecv, 500, 1'000), figures(5, kRecv, 2'000, 1'000),
                             figures(6, kSend, 0, 10'000, 10)});

  // Of many links, the slowest kMaxLinks; ties go to the lower peer.
  TempDir dir2;
  Table many(dir2);
  TableWriter many_writer(many.path);
  PeerTraffic many_traffic(many.path);
  for (int peer = 0; peer < 12; ++peer) {
    many_writer.set(peer, done(peer, kSend, 1000 * (12 - peer / 2), 1));
  }
  window = many_traffic.window(100 * kMs);
  REQUIRE(window);
  CHECK(window->active == 12);
  REQUIRE(window->links.size() == PeerTraffic::kMaxLinks);
  const int expected[] = {10, 11, 8, 9, 6, 7, 4, 5};
  for (std::size_t i = 0; i < PeerTraffic::kMaxLinks; ++i) {
    CHECK(window->links[i].peer == expected[i]);
  }
}

TEST_CASE("counters that went back are a writer that started over - all they show is new") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  writer.set(0, done(1, kSend, 5000, 50));
  REQUIRE(traffic.window(100 * kMs));
  writer.set(0, done(1, kSend, 300, 3));
  auto window = traffic.window(200 * kMs);
  REQUIRE(window);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 300, 3000)});
  writer.set(0, done(1, kSend, 400, 4));
  window = traffic.window(300 * kMs);
  REQUIRE(window);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 100, 1000)});
}

TEST_CASE("a slot being written counts in the next window - slots that name no link are skipped") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  writer.set(0, done(1, kSend, 1000, 1));
  writer.set(1, done(-1, kSend, 1000, 1));
  writer.set(2, done(2, 7, 1000, 1));
  pai_telemetry_peer_write_begin(writer.slot(0));
  auto window = traffic.window(100 * kMs);
  REQUIRE(window);
  CHECK(window->links.empty());
  pai_telemetry_peer_write_end(writer.slot(0));
  window = traffic.window(200 * kMs);
  REQUIRE(window);
  CHECK(window->links == std::vector<PeerLinkSummary>{figures(1, kSend, 1000, 1000)});
}

TEST_CASE("in_flight() lists the links in flight, longest stalled first, and leaves the window") {
  TempDir dir;
  Table table(dir);
  TableWriter writer(table.path);
  PeerTraffic traffic(table.path);
  writer.set(0, in_flight(1, kSend, 400));
  writer.set(1, done(2, kSend, 1000, 1));
  writer.set(2, in_flight(3, kRecv, 100, 300));
  auto links = traffic.in_flight(1000 * kMs);
  REQUIRE(links);
  CHECK(*links ==
        std::vector<PeerLinkSummary>{figures(3, kRecv, 0, 0, 700), figures(1, kSend, 0, 0, 600)});
  auto window = traffic.window(1000 * kMs);
  REQUIRE(window);
  CHECK(window->active == 3);
  CHECK(window->links[0] == figures(2, kSend, 1000, 1000));
  CHECK(window->links[1] == figures(3, kRecv, 0, 900'000, 700));
}

TEST_CASE("a table that is missing, no table, or breaks gives no figures - never a fault") {
  TempDir dir;
  CHECK_FALSE(PeerTraffic(dir / "missing.peers").window(kMs));
  spit(dir / "text.peers", std::string(1000, 'x'));
  CHECK_FALSE(PeerTraffic(dir / "text.peers").window(kMs));
  create_telemetry_ring(dir / "ring", 3);
  CHECK_FALSE(PeerTraffic(dir / "ring").in_flight(kMs));

  Table table(dir);
  PeerTraffic traffic(table.path);
  REQUIRE(traffic.window(kMs));
  REQUIRE(::truncate(table.path.c_str(), 100) == 0);
  CHECK_FALSE(traffic.window(2 * kMs));
  REQUIRE(::truncate(table.path.c_str(), PAI_TELEMETRY_PEERS_FILE_SIZE(64)) == 0);
  CHECK_FALSE(traffic.window(3 * kMs));  // given up: the file changed under it once
}

}  // namespace peer_traffic_test
