// The world communicator's transfers per peer (nccl_profiler/transfers.h), driven with NCCL's
// proxy events in the shape of a real trace and a fake clock, so that every figure of the
// per-peer table can be checked exactly; read back with the launcher's reader.
#include "nccl_profiler/transfers.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "launcher/supervisor/peer_table.h"
#include "nccl_profiler/plugin_fixture.h"
#include "support/temp_dir.h"

namespace transfers_test {

namespace {

using pai::nccl_profiler::Transfers;
using plugin_fixture::Link;
using plugin_fixture::play;

constexpr std::uint64_t kStart = 1'000'000'000;  // the fake clock when a collective starts
constexpr std::uint64_t kStep = 512 * 1024;
std::uint64_t g_now = kStart;
std::uint64_t fake_clock() { return g_now; }

// A context NCCL would give: compared, never read.
int g_world_context = 0;
const void* const kWorld = &g_world_context;

// A per-peer table of rank 3 of 4 ranks in a temporary folder, named by
// PAI_TELEMETRY_PEERS_FILE, and the transfers of a world communicator recorded into it.
class Table {
 public:
  explicit Table(std::uint32_t slots = PAI_TELEMETRY_PEERS_DEFAULT_SLOTS)
      : path_(dir_ / "worker-0.rank-3.telemetry.peers") {
    pai::launcher::create_peer_table(path_, 3, slots);
    ::setenv("PAI_TELEMETRY_PEERS_FILE", path_.c_str(), 1);
    g_now = kStart;
  }
  ~Table() {
    transfers.detach(kWorld);
    ::unsetenv("PAI_TELEMETRY_PEERS_FILE");
  }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const std::string& path() const { return path_; }
  pai::launcher::PeerTableRead read() const {
    auto read = pai::launcher::PeerTableReader(path_).read();
    CHECK(read.torn == 0);
    return read;
  }
  std::vector<pai_telemetry_peer> peers() const { return read().peers; }

  Transfers transfers{fake_clock};

 private:
  pai::testing::TempDir dir_;
  std::string path_;
};

// NCCL's proxy events sent to a Transfers, as the plugin does, at the fake clock's times.
class Events : public plugin_fixture::ProxyEvents {
 public:
  explicit Events(Transfers& transfers, const void* context = kWorld, pid_t pid = ::getpid())
      : transfers_(transfers), context_(context), pid_(pid) {}
  void* op(int peer, bool send, std::uint8_t) override {
    return transfers_.op_started(context_, pid_, peer, send);
  }
  void* step(void* parent, int) override { return transfers_.step_started(parent); }
  void state(void* handle, int state, std::size_t size) override {
    if (handle == nullptr) return;  // NCCL records states only of handles it got
    ncclProfilerEventStateArgs args{};
    args.proxyStep.transSize = size;
    transfers_.state_recorded(handle, state, &args);
  }
  void stop(void* handle) override {
    if (handle != nullptr) CHECK(transfers_.stopped(handle));
  }
  void at(std::uint64_t t) override { g_now = start + t; }

  std::uint64_t start = kStart;  // of the collective played next

 private:
  Transfers& transfers_;
  const void* context_;
  pid_t pid_;
};

void check_link(const pai_telemetry_peer& p, int peer, int direction, std::uint64_t transfers,
                std::uint64_t busy_ns, std::uint64_t last_done) {
  INFO("peer " << peer << " direction " << direction);
  CHECK(p.peer == peer);
  CHECK(p.direction == direction);
  CHECK(p.transfers == transfers);
  CHECK(p.bytes == transfers * kStep);
  CHECK(p.busy_ns == busy_ns);
  CHECK(p.in_flight == 0);
  CHECK(p.last_done_ns == kStart + last_done);
}

}  // namespace

TEST_CASE("a collective's transfers give each link its bytes and the union of its busy time") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  CHECK(pai::launcher::PeerTableReader(table.path()).writer_pid() == ::getpid());
  Events nccl(table.transfers);
  // 2 channels, 4 steps each, one every 10 ns. Receives from 2: all posted at 0, the data of
  // step k there at 10k + 7: busy from 0 to 37. Sends to 0: step k posted at 10k, done 5 ns
  // later: busy 4 x 5 ns (the two channels' sends overlap exactly). Sends to 1 take 50 ns:
  // they overlap one another, busy from 0 to 80 - a quarter of the rate to 0.
  play(nccl, {Link{2, false, 7}, Link{0, true, 5}, Link{1, true, 50}});
  auto peers = table.peers();
  REQUIRE(peers.size() == 3);
  check_link(peers[0], 2, PAI_TELEMETRY_PEER_RECV, 8, 37, 37);
  check_link(peers[1], 0, PAI_TELEMETRY_PEER_SEND, 8, 20, 35);
  check_link(peers[2], 1, PAI_TELEMETRY_PEER_SEND, 8, 80, 80);
  for (const auto& p : peers) CHECK(p.seq % 2 == 0);
  auto read = table.read();
  CHECK(read.unplaced == 0);
  CHECK(read.dropped == 0);

  // The next collective, 1000 ns later, adds to the same slots.
  nccl.start = kStart + 1000;
  play(nccl, {Link{2, false, 7}, Link{0, true, 5}, Link{1, true, 50}});
  peers = table.peers();
  REQUIRE(peers.size() == 3);
  check_link(peers[0], 2, PAI_TELEMETRY_PEER_RECV, 16, 74, 1037);
  check_link(peers[1], 0, PAI_TELEMETRY_PEER_SEND, 16, 40, 1035);
}

TEST_CASE("transfers in flight without a completion are a stall that a completion ends") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  void* op = nccl.op(1, true, 0);
  void* first = nccl.step(op, 0);
  void* second = nccl.step(op, 1);
  nccl.state(first, ncclProfilerProxyStepSendGPUWait, 0);
  nccl.state(first, ncclProfilerProxyStepSendPeerWait_v4, 0);  // waiting for credit: not yet
  REQUIRE(table.peers().at(0).in_flight == 0);
  nccl.state(first, ncclProfilerProxyStepSendWait, kStep);
  g_now = kStart + 100;
  nccl.state(second, ncclProfilerProxyStepSendWait, kStep);
  auto p = table.peers().at(0);
  CHECK(p.in_flight == 2);
  CHECK(p.busy_since_ns == kStart);
  CHECK(p.busy_ns == 0);
  CHECK(pai_telemetry_peer_stalled_ns(&p, kStart + 5'000'000'000) == 5'000'000'000);
  CHECK(pai_telemetry_peer_busy_ns(&p, kStart + 5'000'000'000) == 5'000'000'000);

  g_now = kStart + 6'000'000'000;
  nccl.stop(first);
  p = table.peers().at(0);
  CHECK(p.in_flight == 1);
  CHECK(p.transfers == 1);
  CHECK(pai_telemetry_peer_stalled_ns(&p, kStart + 6'500'000'000) == 500'000'000);
  g_now = kStart + 7'000'000'000;
  nccl.stop(second);
  p = table.peers().at(0);
  CHECK(p.in_flight == 0);
  CHECK(pai_telemetry_peer_stalled_ns(&p, kStart + 8'000'000'000) == -1);
  CHECK(p.busy_ns == 7'000'000'000);
  CHECK(p.bytes == 2 * kStep);
}

TEST_CASE("a receive stopped before its data arrived ends without completing") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  void* step = nccl.step(nccl.op(2, false, 0), 0);
  nccl.state(step, ncclProfilerProxyStepRecvWait, 0);
  g_now = kStart + 30;
  nccl.stop(step);
  const auto p = table.peers().at(0);
  CHECK(p.in_flight == 0);
  CHECK(p.transfers == 0);
  CHECK(p.bytes == 0);
  CHECK(p.busy_ns == 30);
  CHECK(p.last_done_ns == 0);
}

TEST_CASE("operations of another communicator, another process or no world rank get no handle") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  int other = 0;
  CHECK(table.transfers.op_started(&other, ::getpid(), 1, true) == nullptr);
  CHECK(table.transfers.op_started(nullptr, ::getpid(), 1, true) == nullptr);
  CHECK(table.transfers.op_started(kWorld, ::getpid() + 1, 1, true) == nullptr);
  CHECK(table.transfers.op_started(kWorld, ::getpid(), 4, true) == nullptr);
  CHECK(table.transfers.op_started(kWorld, ::getpid(), -1, false) == nullptr);
  CHECK(table.transfers.op_started(kWorld, ::getpid(), 3, false) != nullptr);
  CHECK(table.peers().empty());  // a slot is given at a transfer's first step
}

TEST_CASE("steps under anything but a live operation handle get none - never read") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  void* op = nccl.op(1, true, 0);
  REQUIRE(op != nullptr);
  int on_stack = 0;
  CHECK(nccl.step(nullptr, 0) == nullptr);  // NCCL's when the operation got no handle
  CHECK(nccl.step(&on_stack, 0) == nullptr);
  CHECK(nccl.step(static_cast<char*>(op) + 1, 0) == nullptr);
  void* step = nccl.step(op, 0);
  REQUIRE(step != nullptr);
  CHECK(nccl.step(step, 0) == nullptr);  // a step is no operation
  nccl.stop(op);
  CHECK(nccl.step(op, 1) == nullptr);  // stopped
  // Handles not its own are not its to stop; states of them are ignored.
  CHECK_FALSE(table.transfers.stopped(&on_stack));
  CHECK_FALSE(table.transfers.stopped(nullptr));
  table.transfers.state_recorded(&on_stack, ncclProfilerProxyStepSendWait, nullptr);
  // A state without arguments is a transfer of unknown size.
  table.transfers.state_recorded(step, ncclProfilerProxyStepSendWait, nullptr);
  nccl.stop(step);
  const auto p = table.peers().at(0);
  CHECK(p.transfers == 1);
  CHECK(p.bytes == 0);
}

TEST_CASE("operation handles are a ring: operations NCCL never stops do not exhaust them") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  // NCCL stops only the operations of its network transport.
  void* first = nccl.op(1, false, 0);
  for (std::uint32_t i = 1; i < Transfers::kOps; ++i) REQUIRE(nccl.op(1, false, 0) != nullptr);
  void* reused = nccl.op(2, true, 0);
  CHECK(reused == first);
  play(nccl, {Link{2, true}});
  const auto peers = table.peers();
  REQUIRE(peers.size() == 1);
  CHECK(peers[0].peer == 2);
  CHECK(peers[0].transfers == 8);
}

TEST_CASE("with every step handle in use a step gets none and is counted dropped") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  void* op = nccl.op(1, true, 0);
  std::vector<void*> steps;
  for (std::uint32_t i = 0; i < Transfers::kSteps; ++i) {
    steps.push_back(nccl.step(op, static_cast<int>(i)));
    REQUIRE(steps.back() != nullptr);
  }
  CHECK(nccl.step(op, 0) == nullptr);
  CHECK(nccl.step(op, 0) == nullptr);
  CHECK(table.read().dropped == 2);
  nccl.stop(steps[7]);
  void* again = nccl.step(op, 0);
  CHECK(again == steps[7]);
  CHECK(nccl.step(op, 0) == nullptr);
  CHECK(table.read().dropped == 3);
}

TEST_CASE("a full table counts the transfers of peers it has no slot for as unplaced") {
  Table table(2);
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  play(nccl, {Link{1, true}, Link{1, false}, Link{2, true}});
  const auto read = table.read();
  REQUIRE(read.peers.size() == 2);
  CHECK(read.peers[0].transfers == 8);
  CHECK(read.peers[1].transfers == 8);
  CHECK(read.unplaced == 8);  // 2 channels x 4 steps to 2
}

TEST_CASE("detach ends the transfers in flight - attached again, the counters go on") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  Events nccl(table.transfers);
  play(nccl, {Link{1, true}});
  g_now = kStart + 100;
  void* step = nccl.step(nccl.op(1, true, 0), 0);
  nccl.state(step, ncclProfilerProxyStepSendWait, kStep);
  g_now = kStart + 150;
  table.transfers.detach(kWorld);
  auto p = table.peers().at(0);
  CHECK(p.in_flight == 0);
  CHECK(p.transfers == 8);
  CHECK(p.busy_ns == 20 + 50);                 // busy until the communicator went, not completed
  CHECK_FALSE(table.transfers.stopped(step));  // its handles are forgotten

  int next_world = 0;
  REQUIRE(table.transfers.attach(&next_world, 4));
  Events next(table.transfers, &next_world);
  CHECK(next.op(1, true, 0) != nullptr);
  next.start = kStart + 1000;
  play(next, {Link{1, true}, Link{0, false}});
  const auto peers = table.peers();
  REQUIRE(peers.size() == 2);
  CHECK(peers[0].transfers == 16);
  CHECK(peers[0].busy_ns == 70 + 20);
  CHECK(peers[1].peer == 0);
  table.transfers.detach(&next_world);
}

TEST_CASE("one communicator at a time, and only into a table no other process writes") {
  Table table;
  REQUIRE(table.transfers.attach(kWorld, 4));
  int other = 0;
  CHECK_FALSE(table.transfers.attach(&other, 4));
  table.transfers.detach(&other);  // not the one attached: nothing
  CHECK(table.transfers.op_started(kWorld, ::getpid(), 1, true) != nullptr);
  table.transfers.detach(kWorld);

  const int holder = ::open(table.path().c_str(), O_RDWR);
  REQUIRE(holder >= 0);
  REQUIRE(::flock(holder, LOCK_EX | LOCK_NB) == 0);
  CHECK_FALSE(table.transfers.attach(kWorld, 4));
  CHECK(table.transfers.op_started(kWorld, ::getpid(), 1, true) == nullptr);
  ::close(holder);
  CHECK(table.transfers.attach(kWorld, 4));
}

TEST_CASE("without PAI_TELEMETRY_PEERS_FILE, or with a file that is no table, nothing attaches") {
  Table table;
  ::unsetenv("PAI_TELEMETRY_PEERS_FILE");
  CHECK_FALSE(table.transfers.attach(kWorld, 4));
  const std::string ring = table.path() + ".ring";
  pai::launcher::create_telemetry_ring(ring, 3);
  ::setenv("PAI_TELEMETRY_PEERS_FILE", ring.c_str(), 1);
  CHECK_FALSE(table.transfers.attach(kWorld, 4));
  ::setenv("PAI_TELEMETRY_PEERS_FILE", (table.path() + ".missing").c_str(), 1);
  CHECK_FALSE(table.transfers.attach(kWorld, 4));
  CHECK(table.transfers.op_started(kWorld, ::getpid(), 1, true) == nullptr);
  CHECK_FALSE(table.transfers.attach(nullptr, 4));
}

}  // namespace transfers_test
