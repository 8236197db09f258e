// libpai-nccl-profiler.so driven as NCCL drives it: dlopen, the ncclProfiler_vN symbol, init
// per communicator, startEvent/stopEvent from several threads, finalize; what it writes is
// read back with the launcher's own reader (launcher/supervisor/telemetry_ring.h and
// rank_telemetry.h), so the records mean to the diagnosis what the SDK's mean.
#include <dlfcn.h>
#include <fcntl.h>
#include <pai/telemetry.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "launcher/supervisor/peer_table.h"
#include "launcher/supervisor/rank_telemetry.h"
#include "launcher/supervisor/telemetry_ring.h"
#include "nccl_profiler/nccl_profiler_api.h"
#include "nccl_profiler/plugin_fixture.h"

namespace plugin_test {

namespace {

using pai::launcher::RankTelemetry;
using pai::launcher::TelemetryReader;
using plugin_fixture::Plugin;
using plugin_fixture::Ring;

constexpr int kActive = plugin_fixture::kCollectiveEvents;

struct Expected {
  std::uint16_t kind;
  std::uint16_t op;
  std::uint32_t group;
  std::uint64_t seq;
};

void check_records(const std::vector<pai_telemetry_record>& records,
                   const std::vector<Expected>& expected) {
  REQUIRE(records.size() == expected.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    INFO("record " << i);
    CHECK(records[i].kind == expected[i].kind);
    CHECK(records[i].op == expected[i].op);
    CHECK(records[i].group == expected[i].group);
    CHECK(records[i].collective_seq == expected[i].seq);
    CHECK(records[i].step == -1);
  }
}

int g_logged = 0;
void count_log(int, unsigned long, const char*, int, const char*, ...) { ++g_logged; }

constexpr std::uint16_t kEnter = PAI_TELEMETRY_COLLECTIVE_ENTER;
constexpr std::uint16_t kExit = PAI_TELEMETRY_COLLECTIVE_EXIT;
constexpr std::uint16_t kAllReduce = PAI_TELEMETRY_OP_ALL_REDUCE;

}  // namespace

TEST_CASE("a world collective enters at its Coll event and exits when its last kernel stops") {
  Ring ring(4);
  Plugin plugin;
  void* comm = plugin.init(0x1234, 4);
  REQUIRE(comm != nullptr);
  CHECK(plugin.mask == kActive);
  CHECK(TelemetryReader(ring.path()).writer_pid() == ::getpid());

  RankTelemetry summaries(ring.path(), 3, RankTelemetry::Clock::now());
  void* c = plugin.coll(comm, "AllReduce", 1024, "ncclFloat32");
  plugin.stop(c);  // enqueued: the GPU has not run it yet
  void* k0 = plugin.kernel(comm, c, 0);
  void* k1 = plugin.kernel(comm, c, 1);
  plugin.stop(k0);
  auto records = ring.records();
  check_records(records, {{kEnter, kAllReduce, 0, 1}});
  CHECK(records[0].bytes == 4096);
  auto open = summaries.summary(RankTelemetry::Clock::now());
  REQUIRE(open);
  CHECK(open->entered == 1);
  CHECK(open->exited == 0);
  CHECK(open->op == kAllReduce);

  plugin.stop(k1);
  plugin.run(comm, "Broadcast");
  check_records(ring.records(), {{kEnter, kAllReduce, 0, 1},
                                 {kExit, kAllReduce, 0, 1},
                                 {kEnter, PAI_TELEMETRY_OP_BROADCAST, 0, 2},
                                 {kExit, PAI_TELEMETRY_OP_BROADCAST, 0, 2}});
  auto done = summaries.summary(RankTelemetry::Clock::now());
  REQUIRE(done);
  CHECK(done->entered == 2);
  CHECK(done->exited == 2);
  CHECK(done->open_ms == -1);
  plugin.finalize(comm);
  CHECK(ring.records().size() == 4);
}

TEST_CASE("ncclProfiler_v4 records the same with v4's init") {
  Ring ring(2);
  Plugin plugin;
  CHECK(std::string(plugin.v4->name) == "pai-telemetry");
  void* comm = nullptr;
  REQUIRE(plugin.v4->init(&comm, &plugin.mask, "comm", 0x99, 1, 2, 1, count_log) == ncclSuccess);
  CHECK(g_logged == 1);  // one INFO line saying what it records
  CHECK(plugin.mask == kActive);
  ncclProfilerEventDescr_v4_t d{};
  d.type = ncclProfileColl;
  d.coll.func = "ReduceScatter";
  d.coll.count = 10;
  d.coll.datatype = "ncclBfloat16";
  void* c = nullptr;
  REQUIRE(plugin.v4->startEvent(comm, &c, &d) == ncclSuccess);
  REQUIRE(plugin.v4->stopEvent(c) == ncclSuccess);
  ncclProfilerEventDescr_v4_t k{};
  k.type = ncclProfileKernelCh;
  k.parentObj = c;
  void* kh = nullptr;
  REQUIRE(plugin.v4->startEvent(comm, &kh, &k) == ncclSuccess);
  REQUIRE(kh != nullptr);
  REQUIRE(plugin.v4->recordEventState(kh, 22, nullptr) == ncclSuccess);
  REQUIRE(plugin.v4->stopEvent(kh) == ncclSuccess);
  REQUIRE(plugin.v4->finalize(comm) == ncclSuccess);
  auto records = ring.records();
  check_records(records, {{kEnter, PAI_TELEMETRY_OP_REDUCE_SCATTER, 0, 1},
                          {kExit, PAI_TELEMETRY_OP_REDUCE_SCATTER, 0, 1}});
  CHECK(records[0].bytes == 20);
}

TEST_CASE("only the first communicator of WORLD_SIZE ranks is the world group - others get ids") {
  Ring ring(4);
  Plugin plugin;
  void* world = plugin.init(0x1111, 4);
  void* pair = plugin.init(0xabcdef0012345678ull, 2);
  void* second_world = plugin.init(0x2222, 4);
  plugin.run(pair);
  plugin.run(world);
  plugin.run(second_world);
  plugin.run(world);
  const std::uint32_t pair_group = (0x12345678u ^ 0xabcdef00u) | 0x80000000u;
  const std::uint32_t second_group = 0x2222u | 0x80000000u;
  check_records(ring.records(), {{kEnter, kAllReduce, pair_group, 1},
                                 {kExit, kAllReduce, pair_group, 1},
                                 {kEnter, kAllReduce, 0, 1},
                                 {kExit, kAllReduce, 0, 1},
                                 {kEnter, kAllReduce, second_group, 1},
                                 {kExit, kAllReduce, second_group, 1},
                                 {kEnter, kAllReduce, 0, 2},
                                 {kExit, kAllReduce, 0, 2}});
  for (void* comm : {world, pair, second_world}) plugin.finalize(comm);

  // With the world communicator gone, the next one of WORLD_SIZE ranks is the world again.
  void* again = plugin.init(0x3333, 4);
  plugin.run(again);
  CHECK(ring.records().back().group == 0);
  plugin.finalize(again);
}

TEST_CASE("without WORLD_SIZE no communicator is the world group") {
  Ring ring(4);
  ::unsetenv("WORLD_SIZE");
  Plugin plugin;
  void* comm = plugin.init(0x5, 4);
  plugin.run(comm);
  CHECK(ring.records().front().group == (0x5u | 0x80000000u));
  plugin.finalize(comm);
}

TEST_CASE("a one-rank communicator's collective exits when enqueued - no kernel is reported") {
  Ring ring(1);
  Plugin plugin;
  void* comm = plugin.init(0x1, 1);
  plugin.stop(plugin.coll(comm));
  check_records(ring.records(), {{kEnter, kAllReduce, 0, 1}, {kExit, kAllReduce, 0, 1}});
  plugin.finalize(comm);
}

// NCCL runs a communicator's kernels in order.
TEST_CASE("a collective without kernel events exits when a later one's kernel starts") {
  Ring ring(4);
  Plugin plugin;
  void* comm = plugin.init(0x1, 4);
  void* first = plugin.coll(comm);
  plugin.stop(first);
  void* second = plugin.coll(comm);
  plugin.stop(second);
  void* k = plugin.kernel(comm, second);
  check_records(
      ring.records(),
      {{kEnter, kAllReduce, 0, 1}, {kEnter, kAllReduce, 0, 2}, {kExit, kAllReduce, 0, 1}});
  plugin.stop(k);
  CHECK(ring.records().back().collective_seq == 2);
  CHECK(ring.records().back().kind == kExit);
  plugin.finalize(comm);
}

TEST_CASE("finalize records the exit of collectives still open - their communicator is gone") {
  Ring ring(4);
  Plugin plugin;
  void* comm = plugin.init(0x1, 4);
  plugin.stop(plugin.coll(comm));
  plugin.finalize(comm);
  check_records(ring.records(), {{kEnter, kAllReduce, 0, 1}, {kExit, kAllReduce, 0, 1}});
}

TEST_CASE("the plugin continues from the ring's head") {
  Ring ring(4);
  {
    // An earlier writer left two records.
    int fd = ::open(ring.path().c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    const auto size = PAI_TELEMETRY_FILE_SIZE(PAI_TELEMETRY_DEFAULT_CAPACITY);
    void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    REQUIRE(base != MAP_FAILED);
    pai_telemetry_record r{};
    r.kind = PAI_TELEMETRY_STEP_BEGIN;
    r.step = 5;
    pai_telemetry_append(base, &r);
    pai_telemetry_append(base, &r);
    ::munmap(base, size);
    ::close(fd);
  }
  Plugin plugin;
  void* comm = plugin.init(0x1, 4);
  plugin.run(comm);
  plugin.finalize(comm);
  auto records = ring.records();
  REQUIRE(records.size() == 4);
  CHECK(records[2].seq == 3);
  CHECK(records[2].kind == kEnter);
}

TEST_CASE("without PAI_TELEMETRY_FILE the plugin is inert and harmless") {
  ::unsetenv("PAI_TELEMETRY_FILE");
  Plugin plugin;
  void* comm = plugin.init(0x1, 4);
  CHECK(comm == nullptr);
  CHECK(plugin.mask == 0);
  CHECK(plugin.coll(comm) == nullptr);
  CHECK(plugin.kernel(comm, nullptr) == nullptr);
  plugin.stop(nullptr);
  CHECK(plugin.v5->recordEventState(nullptr, 0, nullptr) == ncclSuccess);
  plugin.finalize(comm);
}

TEST_CASE("a ring another writer holds leaves the plugin inert") {
  Ring ring(4);
  int holder = ::open(ring.path().c_str(), O_RDWR);
  REQUIRE(holder >= 0);
  REQUIRE(::flock(holder, LOCK_EX | LOCK_NB) == 0);
  Plugin plugin;
  CHECK(plugin.init(0x1, 4) == nullptr);
  CHECK(plugin.mask == 0);
  CHECK(TelemetryReader(ring.path()).written() == 0);
  ::close(holder);
}

TEST_CASE("a file that is not a ring leaves the plugin inert") {
  Ring ring(4);
  const std::string bad = ring.path() + ".bad";
  {
    int fd = ::open(bad.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, "not a ring at all, just text", 28) == 28);
    ::close(fd);
  }
  ::setenv("PAI_TELEMETRY_FILE", bad.c_str(), 1);
  Plugin plugin;
  CHECK(plugin.init(0x1, 4) == nullptr);
  CHECK(plugin.mask == 0);
}

TEST_CASE("odd descriptors are recorded as unknown or ignored - never trusted") {
  Ring ring(4);
  Plugin plugin;
  void* comm = plugin.init(0x1, 4);
  void* other = plugin.init(0x2, 2);

  // Null and unknown names: op OTHER, bytes unknown; a huge count saturates.
  void* a = plugin.coll(comm, nullptr, 5, nullptr);
  void* b = plugin.coll(comm, "SomeFutureCollective", 5, "ncclComplex1024");
  void* c = plugin.coll(comm, "allreduce", std::numeric_limits<std::size_t>::max(), "ncclFloat64");
  auto records = ring.records();
  REQUIRE(records.size() == 3);
  CHECK(records[0].op == PAI_TELEMETRY_OP_OTHER);
  CHECK(records[0].bytes == 0);
  CHECK(records[1].op == PAI_TELEMETRY_OP_OTHER);
  CHECK(records[1].bytes == 0);
  CHECK(records[2].op == kAllReduce);
  CHECK(records[2].bytes == std::numeric_limits<std::uint64_t>::max());

  // Kernel channels whose parent is no collective of this communicator get no handle.
  int on_stack = 0;
  CHECK(plugin.kernel(comm, nullptr) == nullptr);
  CHECK(plugin.kernel(comm, &on_stack) == nullptr);
  CHECK(plugin.kernel(comm, static_cast<char*>(a) + 8) == nullptr);
  CHECK(plugin.kernel(other, a) == nullptr);
  // Events it did not ask for (or types from a future NCCL) get no handle either.
  for (std::uint64_t type :
       {std::uint64_t{ncclProfileGroup}, std::uint64_t{ncclProfileP2p},
        std::uint64_t{ncclProfileProxyOp}, std::uint64_t{ncclProfileGroupApi},
        std::uint64_t{ncclProfileCollApi}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = type;
    d.parentObj = &on_stack;
    CHECK(plugin.start(comm, d) == nullptr);
  }
  // A kernel channel stopped twice (NCCL never does) cannot make the count go below zero.
  plugin.stop(a);
  void* k = plugin.kernel(comm, a);
  plugin.stop(k);
  plugin.stop(k);
  CHECK(ring.records().size() == 4);  // a's exit
  plugin.stop(b);
  plugin.stop(c);
  plugin.finalize(comm);
  plugin.finalize(other);
  CHECK(ring.records().size() == 6);
}

// Every record intact, each communicator's sequence in order, times never going back.
TEST_CASE("collectives of many threads and communicators at once") {
  constexpr int kThreads = 8;
  constexpr int kCollectives = 400;
  Ring ring(4, 1u << 14);
  Plugin plugin;
  std::vector<void*> comms;
  for (int t = 0; t < kThreads; ++t) {
    comms.push_back(plugin.init(0x100 + t, t == 0 ? 4 : 2));
    REQUIRE(comms.back() != nullptr);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    // Each communicator has its user thread (Coll events) and its proxy thread (kernel
    // channels), as in NCCL.
    threads.emplace_back([&plugin, comm = comms[t]] {
      std::vector<void*> handles(kCollectives);
      std::thread proxy;
      std::atomic<int> published{0};
      proxy = std::thread([&] {
        for (int i = 0; i < kCollectives; ++i) {
          while (published.load(std::memory_order_acquire) <= i) std::this_thread::yield();
          void* k0 = plugin.kernel(comm, handles[i], 0);
          void* k1 = plugin.kernel(comm, handles[i], 1);
          plugin.stop(k1);
          plugin.stop(k0);
        }
      });
      for (int i = 0; i < kCollectives; ++i) {
        handles[i] = plugin.coll(comm);
        published.store(i + 1, std::memory_order_release);
        plugin.stop(handles[i]);
      }
      proxy.join();
    });
  }
  for (auto& thread : threads) thread.join();
  for (void* comm : comms) plugin.finalize(comm);

  auto records = ring.records();
  REQUIRE(records.size() == 2u * kThreads * kCollectives);
  std::map<std::uint32_t, std::uint64_t> entered, exited;
  std::uint64_t last_time = 0;
  for (const auto& r : records) {
    CHECK(r.time_ns >= last_time);
    last_time = r.time_ns;
    auto& last = r.kind == kEnter ? entered[r.group] : exited[r.group];
    REQUIRE(r.collective_seq == last + 1);
    last = r.collective_seq;
    if (r.kind == kExit) REQUIRE(r.collective_seq <= entered[r.group]);
  }
  REQUIRE(entered.size() == kThreads);
  CHECK(entered.count(0) == 1);
  for (const auto& [group, n] : exited) CHECK(n == kCollectives);
}

// ---- network transfers per peer (the per-peer table) ----

namespace {

using plugin_fixture::Link;
using plugin_fixture::play;
using plugin_fixture::PluginEventsV4;
using plugin_fixture::PluginEventsV5;

constexpr int kProxyActive = kActive | plugin_fixture::kTransferEvents;
constexpr std::uint64_t kStep = 512 * 1024;

std::uint64_t monotonic_now() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// Checks the slot of a link of `transfers` transfers of kStep bytes, done between `from` and
// `to` (CLOCK_MONOTONIC), none in flight.
void check_link(const pai_telemetry_peer& p, int peer, int direction, std::uint64_t transfers,
                std::uint64_t from, std::uint64_t to) {
  INFO("peer " << peer << " direction " << direction);
  CHECK(p.peer == peer);
  CHECK(p.direction == direction);
  CHECK(p.transfers == transfers);
  CHECK(p.bytes == transfers * kStep);
  CHECK(p.in_flight == 0);
  CHECK(p.busy_ns > 0);
  CHECK(p.busy_ns <= to - from);
  CHECK(p.last_done_ns >= from);
  CHECK(p.last_done_ns <= to);
}

}  // namespace

TEST_CASE("with a per-peer table the world communicator's transfers are counted per peer") {
  Ring ring(4, PAI_TELEMETRY_DEFAULT_CAPACITY, true);
  Plugin plugin;
  void* world = plugin.init(0x1234, 4);
  REQUIRE(world != nullptr);
  CHECK(plugin.mask == kProxyActive);
  CHECK(pai::launcher::PeerTableReader(ring.peers_path()).writer_pid() == ::getpid());
  // Rank 3 of a ring of 4: it receives from 2 and sends to 0, on 2 channels of 4 steps.
  PluginEventsV5 nccl(plugin, plugin.v5, world);
  const std::uint64_t from = monotonic_now();
  play(nccl, {Link{2, false}, Link{0, true}});
  const std::uint64_t to = monotonic_now();
  auto peers = ring.peers();
  REQUIRE(peers.size() == 2);
  check_link(peers[0], 2, PAI_TELEMETRY_PEER_RECV, 8, from, to);
  check_link(peers[1], 0, PAI_TELEMETRY_PEER_SEND, 8, from, to);

  // Another collective adds to the same slots.
  play(nccl, {Link{2, false}, Link{0, true}});
  peers = ring.peers();
  REQUIRE(peers.size() == 2);
  CHECK(peers[0].transfers == 16);
  CHECK(peers[1].bytes == 16 * kStep);
  plugin.finalize(world);
  CHECK(pai::launcher::PeerTableReader(ring.peers_path()).read().peers.size() == 2);
}

TEST_CASE("ncclProfiler_v4 counts the same transfers with its one-byte types") {
  Ring ring(2, PAI_TELEMETRY_DEFAULT_CAPACITY, true);
  Plugin plugin;
  void* world = nullptr;
  REQUIRE(plugin.v4->init(&world, &plugin.mask, "comm", 0x99, 1, 2, 1, nullptr) == ncclSuccess);
  REQUIRE(world != nullptr);
  CHECK(plugin.mask == kProxyActive);
  PluginEventsV4 nccl(plugin, plugin.v4, world);
  const std::uint64_t from = monotonic_now();
  play(nccl, {Link{0, false}, Link{0, true}});
  const std::uint64_t to = monotonic_now();
  auto peers = ring.peers();
  REQUIRE(peers.size() == 2);
  check_link(peers[0], 0, PAI_TELEMETRY_PEER_RECV, 8, from, to);
  check_link(peers[1], 0, PAI_TELEMETRY_PEER_SEND, 8, from, to);
  REQUIRE(plugin.v4->finalize(world) == ncclSuccess);
}

TEST_CASE("only the world communicator's transfers are counted - and only this process's") {
  Ring ring(4, PAI_TELEMETRY_DEFAULT_CAPACITY, true);
  Plugin plugin;
  void* world = plugin.init(0x1, 4);
  void* pair = plugin.init(0x2, 2);
  REQUIRE(pair != nullptr);
  // A sub-communicator's ranks are not global ranks: its operations get no handle.
  PluginEventsV5 sub(plugin, plugin.v5, pair);
  CHECK(sub.op(0, true, 0) == nullptr);
  play(sub, {Link{1, true}});
  // Under PXN this process's proxy runs another process's operations: not this rank's.
  PluginEventsV5 pxn(plugin, plugin.v5, world, ::getpid() + 1);
  CHECK(pxn.op(0, true, 0) == nullptr);
  // Peers that are no rank of the world.
  PluginEventsV5 nccl(plugin, plugin.v5, world);
  CHECK(nccl.op(4, true, 0) == nullptr);
  CHECK(nccl.op(-1, false, 0) == nullptr);
  CHECK(ring.peers().empty());

  play(nccl, {Link{1, true}});
  auto peers = ring.peers();
  REQUIRE(peers.size() == 1);
  CHECK(peers[0].peer == 1);
  CHECK(peers[0].transfers == 8);
  plugin.finalize(pair);
  plugin.finalize(world);
}

TEST_CASE("without a per-peer table no proxy event is asked for, and none gets a handle") {
  Ring ring(4);
  Plugin plugin;
  void* world = plugin.init(0x1, 4);
  CHECK(plugin.mask == kActive);
  PluginEventsV5 nccl(plugin, plugin.v5, world);
  CHECK(nccl.op(1, true, 0) == nullptr);
  plugin.finalize(world);
}

TEST_CASE("the next world communicator continues the counters - finalize ends what is in flight") {
  Ring ring(4, PAI_TELEMETRY_DEFAULT_CAPACITY, true);
  Plugin plugin;
  void* world = plugin.init(0x1, 4);
  PluginEventsV5 nccl(plugin, plugin.v5, world);
  play(nccl, {Link{1, true}});
  // A send posted to the network when the communicator goes (an abort).
  void* op = nccl.op(1, true, 0);
  void* step = nccl.step(op, 0);
  nccl.state(step, ncclProfilerProxyStepSendWait, kStep);
  REQUIRE(ring.peers().at(0).in_flight == 1);
  plugin.finalize(world);
  auto peers = ring.peers();
  REQUIRE(peers.size() == 1);
  CHECK(peers[0].in_flight == 0);
  CHECK(peers[0].transfers == 8);
  CHECK(pai::launcher::PeerTableReader(ring.peers_path()).writer_pid() == ::getpid());

  void* again = plugin.init(0x2, 4);
  CHECK(plugin.mask == kProxyActive);
  PluginEventsV5 next(plugin, plugin.v5, again);
  play(next, {Link{1, true}, Link{2, false}});
  peers = ring.peers();
  REQUIRE(peers.size() == 2);
  CHECK(peers[0].peer == 1);
  CHECK(peers[0].transfers == 16);
  CHECK(peers[1].peer == 2);
  CHECK(peers[1].transfers == 8);
  plugin.finalize(again);
}

TEST_CASE("a process forked from the writer writes nothing into the table") {
  Ring ring(4, PAI_TELEMETRY_DEFAULT_CAPACITY, true);
  Plugin plugin;
  void* world = plugin.init(0x1, 4);
  PluginEventsV5 nccl(plugin, plugin.v5, world);
  play(nccl, {Link{1, true}});
  const auto before = ring.peers();
  REQUIRE(before.size() == 1);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // It inherited the mapping: any write would land in the parent's table.
    PluginEventsV5 in_child(plugin, plugin.v5, world);
    play(in_child, {Link{1, true}, Link{2, false}});
    plugin.v5->finalize(world);
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  const auto after = ring.peers();
  REQUIRE(after.size() == 1);
  CHECK(after[0].transfers == before[0].transfers);
  CHECK(after[0].seq == before[0].seq);
  CHECK(pai::launcher::PeerTableReader(ring.peers_path()).writer_pid() == ::getpid());
  plugin.finalize(world);
}

}  // namespace plugin_test
