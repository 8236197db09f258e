// What the tests of libpai-nccl-profiler.so share: the rank's telemetry files in a temporary
// folder, the plugin loaded as NCCL loads it, and NCCL's proxy events for one collective in
// the order and shape of a real trace.
#pragma once

#include <dlfcn.h>
#include <pai/telemetry.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "launcher/supervisor/peer_table.h"
#include "launcher/supervisor/telemetry_ring.h"
#include "nccl_profiler/nccl_profiler_api.h"

namespace plugin_fixture {

inline const char* const kPlugin = PAI_BINARY_DIR "/nccl_profiler/libpai-nccl-profiler.so";
inline constexpr int kCollectiveEvents = ncclProfileColl | ncclProfileKernelCh;
inline constexpr int kTransferEvents = ncclProfileProxyOp | ncclProfileProxyStep;

// A fresh ring in a temporary folder, named by PAI_TELEMETRY_FILE for the test's duration,
// with `peers` its per-peer table beside it (PAI_TELEMETRY_PEERS_FILE); WORLD_SIZE set to
// `world`.
class Ring {
 public:
  explicit Ring(int world = 4, std::uint32_t capacity = PAI_TELEMETRY_DEFAULT_CAPACITY,
                bool peers = false) {
    char dir[] = "/tmp/pai-nccl-profiler-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    dir_ = dir;
    path_ = dir_ + "/worker-0.rank-3.telemetry";
    pai::launcher::create_telemetry_ring(path_, 3, capacity);
    ::setenv("PAI_TELEMETRY_FILE", path_.c_str(), 1);
    ::setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
    if (peers) {
      pai::launcher::create_peer_table(peers_path(), 3);
      ::setenv("PAI_TELEMETRY_PEERS_FILE", peers_path().c_str(), 1);
    }
  }
  ~Ring() {
    ::unsetenv("PAI_TELEMETRY_FILE");
    ::unsetenv("PAI_TELEMETRY_PEERS_FILE");
    ::unsetenv("WORLD_SIZE");
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  const std::string& path() const { return path_; }
  std::string peers_path() const { return path_ + ".peers"; }
  std::vector<pai_telemetry_record> records() const {
    pai::launcher::TelemetryReader reader(path_);
    auto poll = reader.poll();
    CHECK(poll.lost == 0);
    return poll.records;
  }
  // The per-peer table's slots in use, checked to be read whole.
  std::vector<pai_telemetry_peer> peers() const {
    auto read = pai::launcher::PeerTableReader(peers_path()).read();
    CHECK(read.torn == 0);
    return read.peers;
  }

 private:
  std::string dir_;
  std::string path_;
};

// The plugin, loaded as NCCL loads it.
class Plugin {
 public:
  Plugin() {
    lib_ = ::dlopen(kPlugin, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib_ != nullptr);
    v5 = static_cast<ncclProfiler_v5_t*>(::dlsym(lib_, "ncclProfiler_v5"));
    v4 = static_cast<ncclProfiler_v4_t*>(::dlsym(lib_, "ncclProfiler_v4"));
    REQUIRE(v5 != nullptr);
    REQUIRE(v4 != nullptr);
  }
  // Catch's assertions are for the main thread alone: the entry points count what NCCL would
  // see go wrong (a result other than ncclSuccess), and the test checks the count here.
  ~Plugin() {
    CHECK(failures == 0);
    ::dlclose(lib_);
  }
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  // init of v5 for communicator `id` of `nranks` ranks: its context; the mask in `mask`.
  void* init(std::uint64_t id, int nranks) {
    void* context = reinterpret_cast<void*>(0x1);  // NCCL's is uninitialized
    REQUIRE(v5->init(&context, id, &mask, "comm", 1, nranks, 0, nullptr) == ncclSuccess);
    return context;
  }
  void finalize(void* context) { REQUIRE(v5->finalize(context) == ncclSuccess); }
  void* coll(void* context, const char* func = "AllReduce", std::size_t count = 1024,
             const char* datatype = "ncclFloat32") {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileColl;
    d.coll.seqNumber = 7;  // NCCL's per-type number: ignored
    d.coll.func = func;
    d.coll.count = count;
    d.coll.datatype = datatype;
    d.coll.nChannels = 2;
    return start(context, d);
  }
  void* kernel(void* context, void* parent, std::uint8_t channel = 0) {
    ncclProfilerEventDescr_v5_t d{};
    d.type = ncclProfileKernelCh;
    d.parentObj = parent;
    d.kernelCh.channelId = channel;
    return start(context, d);
  }
  void* start(void* context, ncclProfilerEventDescr_v5_t& d) {
    void* handle = reinterpret_cast<void*>(0x1);
    if (v5->startEvent(context, &handle, &d) != ncclSuccess) ++failures;
    return handle;
  }
  void stop(void* handle) {
    if (v5->stopEvent(handle) != ncclSuccess) ++failures;
  }
  // A collective run to completion as NCCL reports it: Coll start, Coll stop (enqueued), one
  // kernel channel start and stop.
  void run(void* context, const char* func = "AllReduce") {
    void* c = coll(context, func);
    stop(c);
    void* k = kernel(context, c);
    if (k == nullptr) ++failures;
    stop(k);
  }

  ncclProfiler_v5_t* v5 = nullptr;
  ncclProfiler_v4_t* v4 = nullptr;
  int mask = 0;  // NCCL's activation mask, as the last init left it
  std::atomic<int> failures{0};

 private:
  void* lib_ = nullptr;
};

// What NCCL's proxy thread calls for network transfers, whoever receives it.
class ProxyEvents {
 public:
  virtual ~ProxyEvents() = default;
  // startEvent of a ProxyOp of `channel` with `peer`.
  virtual void* op(int peer, bool send, std::uint8_t channel) = 0;
  // startEvent of a ProxyStep under `parent`.
  virtual void* step(void* parent, int step) = 0;
  // recordEventState with proxyStep.transSize `size`.
  virtual void state(void* handle, int state, std::size_t size) = 0;
  virtual void stop(void* handle) = 0;
  // The time of the next events, in ns from the collective's start; a receiver with a clock
  // of its own ignores it.
  virtual void at(std::uint64_t) {}
};

// One link of a collective: NCCL moves `steps` transfers of `size` bytes on each channel to
// (send) or from (receive) `peer`; each takes `latency` ns (a send from posted to the network
// to done; a receive from posted to its data), a new one starting every `gap` ns.
struct Link {
  int peer;
  bool send;
  std::uint64_t latency = 5;
  std::uint64_t gap = 10;
};

// NCCL's proxy events for one collective over `links` and `channels` channels, as NCCL 2.28.9's
// NET transport sent them (.dev/device1/t2/trace.*.txt): per channel and link a ProxyOp (state
// InProgress), its steps all started at once, a send step's SendGPUWait at its start, then
// SendPeerWait and SendWait (transSize) when posted, stopped when the network is done with
// it; a receive step's RecvWait at its start, then RecvFlushWait (transSize) and RecvGPUWait
// when its data arrived, stopped just after; the ProxyOps stopped last.
inline void play(ProxyEvents& nccl, const std::vector<Link>& links, int channels = 2, int steps = 4,
                 std::size_t size = 512 * 1024) {
  struct Event {
    std::uint64_t at;
    std::function<void()> run;
  };
  std::vector<Event> events;
  std::vector<void*> ops;
  std::vector<void*> handles(links.size() * channels * steps, nullptr);
  std::uint64_t end = 0;
  nccl.at(0);
  for (const Link& link : links) {
    for (int c = 0; c < channels; ++c) {
      void* op = nccl.op(link.peer, link.send, static_cast<std::uint8_t>(c));
      ops.push_back(op);
      if (op != nullptr) nccl.state(op, ncclProfilerProxyOpInProgress_v4, 0);
      for (int k = 0; k < steps; ++k) {
        void*& h = handles[(ops.size() - 1) * steps + k];
        h = nccl.step(op, k);
        nccl.state(h, link.send ? ncclProfilerProxyStepSendGPUWait : ncclProfilerProxyStepRecvWait,
                   0);
        const std::uint64_t posted = k * link.gap;
        const std::uint64_t done = posted + link.latency;
        end = std::max(end, done + 1);
        if (link.send) {
          events.push_back({posted, [&nccl, &h, size] {
                              nccl.state(h, ncclProfilerProxyStepSendPeerWait_v4, 0);
                              nccl.state(h, ncclProfilerProxyStepSendWait, size);
                            }});
          events.push_back({done, [&nccl, &h] { nccl.stop(h); }});
        } else {
          events.push_back({done, [&nccl, &h, size] {
                              nccl.state(h, ncclProfilerProxyStepRecvFlushWait, size);
                              nccl.state(h, ncclProfilerProxyStepRecvGPUWait, size);
                            }});
          events.push_back({done + 1, [&nccl, &h] { nccl.stop(h); }});
        }
      }
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.at < b.at; });
  for (const Event& e : events) {
    nccl.at(e.at);
    e.run();
  }
  nccl.at(end);
  for (void* op : ops) nccl.stop(op);
}

// The proxy events sent to the plugin's entry points `profiler` (its ncclProfiler_v5 or
// ncclProfiler_v4, whose descriptors are `Descr`) for `context`, as issued by process `pid`.
template <typename Profiler, typename Descr>
class PluginEvents : public ProxyEvents {
 public:
  PluginEvents(Plugin& plugin, Profiler* profiler, void* context, pid_t pid = ::getpid())
      : plugin_(plugin), profiler_(profiler), context_(context), pid_(pid) {}
  void* op(int peer, bool send, std::uint8_t channel) override {
    Descr d{};
    d.type = ncclProfileProxyOp;
    d.parentObj = &d;  // the Coll handle in NCCL; not read
    d.rank = 3;
    d.proxyOp.pid = pid_;
    d.proxyOp.channelId = channel;
    d.proxyOp.peer = peer;
    d.proxyOp.nSteps = 4;
    d.proxyOp.chunkSize = 4 << 20;
    d.proxyOp.isSend = send ? 1 : 0;
    return start(d);
  }
  void* step(void* parent, int step) override {
    Descr d{};
    d.type = ncclProfileProxyStep;
    d.parentObj = parent;
    d.rank = 3;
    d.proxyStep.step = step;
    return start(d);
  }
  void state(void* handle, int state, std::size_t size) override {
    // NCCL records states only of handles it got.
    if (handle == nullptr) return;
    ncclProfilerEventStateArgs args{};
    args.proxyStep.transSize = size;
    if (profiler_->recordEventState(handle, state, &args) != ncclSuccess) ++plugin_.failures;
  }
  void stop(void* handle) override {
    if (handle != nullptr && profiler_->stopEvent(handle) != ncclSuccess) ++plugin_.failures;
  }

 private:
  void* start(Descr& d) {
    void* handle = reinterpret_cast<void*>(0x1);
    if (profiler_->startEvent(context_, &handle, &d) != ncclSuccess) ++plugin_.failures;
    return handle;
  }

  Plugin& plugin_;
  Profiler* profiler_;
  void* context_;
  pid_t pid_;
};
using PluginEventsV5 = PluginEvents<ncclProfiler_v5_t, ncclProfilerEventDescr_v5_t>;
using PluginEventsV4 = PluginEvents<ncclProfiler_v4_t, ncclProfilerEventDescr_v4_t>;

}  // namespace plugin_fixture
