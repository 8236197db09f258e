// The writing end of the per-peer table (nccl_profiler/peer_table.h) on a table in memory:
// slots given once and in order, the union of in-flight intervals, the stall formula of
// include/pai/telemetry.h, a full table, and taking over from an earlier writer.
#include "nccl_profiler/peer_table.h"

#include <pai/telemetry.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

namespace peer_table_test {

namespace {

using pai::nccl_profiler::PeerTable;

constexpr auto kSend = PAI_TELEMETRY_PEER_SEND;
constexpr auto kRecv = PAI_TELEMETRY_PEER_RECV;

// A table of `slots` slots in memory, as the launcher creates it (zero beyond the header).
class Memory {
 public:
  explicit Memory(std::uint32_t slots)
      : size_(PAI_TELEMETRY_PEERS_FILE_SIZE(slots)),
        bytes_(static_cast<std::size_t>(size_) / 8 + 1, 0) {
    pai_telemetry_peers_header_init(header(), slots, 3);
  }
  pai_telemetry_peers_header* header() {
    return reinterpret_cast<pai_telemetry_peers_header*>(bytes_.data());
  }
  void* base() { return bytes_.data(); }
  std::uint64_t size() const { return size_; }
  // Slot `i` as a reader copies it; fails the test when the copy is torn.
  pai_telemetry_peer slot(std::uint32_t i) {
    pai_telemetry_peer p;
    REQUIRE(pai_telemetry_peer_read(base(), i, &p) == 1);
    return p;
  }

 private:
  std::uint64_t size_;
  std::vector<std::uint64_t> bytes_;  // 8-byte aligned
};

}  // namespace

TEST_CASE("each (peer, direction) gets one slot, in order, published before `used`") {
  Memory table(8);
  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  CHECK(writer.slot(5, kSend) == 0);
  CHECK(table.header()->used == 1);
  CHECK(writer.slot(5, kRecv) == 1);
  CHECK(writer.slot(5, kSend) == 0);
  CHECK(writer.slot(2, kSend) == 2);
  CHECK(writer.slot(-7, kRecv) == 3);  // any value: the caller checks ranks
  CHECK(pai_telemetry_peers_load_used(table.base()) == 4);
  const pai_telemetry_peer p = table.slot(1);
  CHECK(p.peer == 5);
  CHECK(p.direction == kRecv);
  CHECK(p.seq == 2);
  CHECK(p.bytes == 0);
  CHECK(p.in_flight == 0);
  CHECK(table.slot(3).peer == -7);
  writer.detach(0);
}

TEST_CASE("busy time is the union of the transfers' intervals, not the sum of their durations") {
  Memory table(4);
  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  const int s = writer.slot(1, kSend);
  writer.started(s, 100);
  writer.started(s, 150);        // overlaps the first
  writer.completed(s, 10, 200);  // 1 still in flight
  pai_telemetry_peer p = table.slot(s);
  CHECK(p.in_flight == 1);
  CHECK(p.busy_ns == 0);
  CHECK(p.busy_since_ns == 100);
  CHECK(pai_telemetry_peer_busy_ns(&p, 250) == 150);
  CHECK(pai_telemetry_peer_busy_ns(&p, 50) == 0);  // a time before the interval: none of it
  writer.completed(s, 20, 300);
  p = table.slot(s);
  CHECK(p.busy_ns == 200);  // 100 to 300; the durations add up to 250
  CHECK(p.bytes == 30);
  CHECK(p.transfers == 2);
  CHECK(p.last_done_ns == 300);
  CHECK(p.in_flight == 0);
  CHECK(pai_telemetry_peer_busy_ns(&p, 10'000) == 200);

  // Idle from 300 to 1000: not busy.
  writer.started(s, 1000);
  writer.completed(s, 5, 1040);
  p = table.slot(s);
  CHECK(p.busy_ns == 240);
  CHECK(p.seq % 2 == 0);
  writer.detach(2000);
}

TEST_CASE("a stall is how long transfers have been in flight without one completing") {
  Memory table(4);
  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  const int s = writer.slot(1, kRecv);
  pai_telemetry_peer p = table.slot(s);
  CHECK(pai_telemetry_peer_stalled_ns(&p, 500) == -1);
  writer.started(s, 100);
  writer.started(s, 110);
  p = table.slot(s);
  CHECK(pai_telemetry_peer_stalled_ns(&p, 600) == 500);
  CHECK(pai_telemetry_peer_stalled_ns(&p, 90) == 0);
  writer.completed(s, 1, 200);
  p = table.slot(s);
  CHECK(pai_telemetry_peer_stalled_ns(&p, 600) == 400);  // since the completion
  writer.abandoned(s, 700);
  p = table.slot(s);
  CHECK(pai_telemetry_peer_stalled_ns(&p, 800) == -1);
  CHECK(p.transfers == 1);
  CHECK(p.busy_ns == 600);
  writer.detach(1000);
}

TEST_CASE("a full table gives no slot and counts the transfer unplaced - never writes past it") {
  Memory table(2);
  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  CHECK(writer.slot(1, kSend) == 0);
  CHECK(writer.slot(1, kRecv) == 1);
  CHECK(writer.slot(2, kSend) == -1);
  CHECK(writer.slot(3, kSend) == -1);
  CHECK(table.header()->unplaced == 2);
  CHECK(table.header()->used == 2);
  CHECK(writer.slot(1, kRecv) == 1);
  writer.count_dropped();
  CHECK(table.header()->dropped == 1);
  writer.detach(0);
}

TEST_CASE("a writer takes over an earlier one's table: slots and counters go on") {
  Memory table(4);
  {
    PeerTable earlier;
    REQUIRE(earlier.attach(table.base(), table.size()));
    const int s = earlier.slot(1, kSend);
    earlier.started(s, 100);
    earlier.completed(s, 64, 150);
    earlier.started(s, 200);  // and it ends without a word (killed)
    CHECK(earlier.slot(2, kRecv) == 1);
    // ... in the middle of writing a slot.
    pai_telemetry_peer_write_begin(pai_telemetry_peers_slot(table.base(), 1));
  }
  pai_telemetry_peer torn;
  CHECK(pai_telemetry_peer_read(table.base(), 1, &torn) == 0);

  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  pai_telemetry_peer p = table.slot(0);
  CHECK(p.in_flight == 0);  // its transfers ended with it, their time not counted
  CHECK(p.busy_ns == 50);
  CHECK(p.bytes == 64);
  CHECK(table.slot(1).peer == 2);  // readable again
  CHECK(writer.slot(2, kRecv) == 1);
  CHECK(writer.slot(1, kSend) == 0);
  writer.started(0, 1000);
  writer.completed(0, 64, 1010);
  p = table.slot(0);
  CHECK(p.bytes == 128);
  CHECK(p.transfers == 2);
  CHECK(p.busy_ns == 60);
  CHECK(writer.slot(9, kSend) == 2);
  writer.detach(2000);
}

TEST_CASE("a header that says more slots than the mapping holds is not believed") {
  Memory table(2);
  table.header()->slots = 4000;  // changed after valid() accepted it
  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  CHECK(writer.slot(1, kSend) == 0);
  CHECK(writer.slot(2, kSend) == 1);
  CHECK(writer.slot(3, kSend) == -1);
  CHECK(table.header()->unplaced == 1);
  writer.detach(0);
}

TEST_CASE("detach ends the transfers in flight: busy until then, not completed") {
  Memory table(4);
  PeerTable writer;
  REQUIRE(writer.attach(table.base(), table.size()));
  writer.started(writer.slot(1, kSend), 100);
  writer.started(writer.slot(1, kSend), 120);
  writer.detach(400);
  CHECK_FALSE(writer.attached());
  const pai_telemetry_peer p = table.slot(0);
  CHECK(p.in_flight == 0);
  CHECK(p.busy_ns == 300);
  CHECK(p.transfers == 0);
  writer.detach(500);  // detached: nothing
  CHECK(table.slot(0).busy_ns == 300);
}

TEST_CASE("only a file that is exactly a table of 1 to 4096 slots is one to write") {
  Memory table(4);
  const std::uint64_t size = PAI_TELEMETRY_PEERS_FILE_SIZE(4);
  CHECK(PeerTable::valid(table.header(), size));
  CHECK_FALSE(PeerTable::valid(table.header(), size - 1));
  CHECK_FALSE(PeerTable::valid(table.header(), size + 64));
  pai_telemetry_peers_header h;
  const auto check = [&](auto change) {
    pai_telemetry_peers_header_init(&h, 4, 0);
    change(h);
    return PeerTable::valid(&h, PAI_TELEMETRY_PEERS_FILE_SIZE(h.slots));
  };
  CHECK(check([](auto&) {}));
  CHECK_FALSE(check([](auto& x) { x.magic = PAI_TELEMETRY_MAGIC; }));  // a ring's
  CHECK_FALSE(check([](auto& x) { x.version = 2; }));
  CHECK_FALSE(check([](auto& x) { x.slot_size = 32; }));
  CHECK_FALSE(check([](auto& x) { x.slots = 0; }));
  CHECK_FALSE(check([](auto& x) { x.slots = PAI_TELEMETRY_PEERS_MAX_SLOTS + 1; }));
  CHECK(check([](auto& x) { x.slots = PAI_TELEMETRY_PEERS_MAX_SLOTS; }));
}

}  // namespace peer_table_test
