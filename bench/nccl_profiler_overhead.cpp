// What pai's NCCL profiler plugin costs NCCL's proxy thread per network transfer: it loads
// libpai-nccl-profiler.so as NCCL does, gives it a world communicator whose ring and per-peer
// table are in a temporary folder, and calls its entry points as the proxy thread does for each
// step of a ProxyOp (NCCL 2.28.9's sequence, .dev/device1/t2/trace.*.txt):
//
//   send: startEvent(ProxyStep), recordEventState SendGPUWait, SendPeerWait, SendWait, stopEvent
//   recv: startEvent(ProxyStep), recordEventState RecvWait, RecvFlushWait, RecvGPUWait, stopEvent
//
// and, for comparison, the same calls into a plugin that has no per-peer table (no handle given:
// what NCCL would call if it asked for proxy events anyway). Prints one line of key=value
// figures: ns per step and per event for each, the best of --rounds rounds of --steps steps.
// NCCL at 400 Gbit/s with 512 KiB steps makes about 100,000 steps a second per direction.
//
//   nccl_profiler_overhead [--plugin PATH] [--steps N] [--rounds R]
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "launcher/supervisor/peer_table.h"
#include "launcher/supervisor/telemetry_ring.h"
#include "nccl_profiler/nccl_profiler_api.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string plugin = PAI_BINARY_DIR "/nccl_profiler/libpai-nccl-profiler.so";
  long steps = 1'000'000;
  int rounds = 5;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--plugin") {
      o.plugin = argv[i + 1];
    } else if (flag == "--steps") {
      o.steps = std::atol(argv[i + 1]);
    } else if (flag == "--rounds") {
      o.rounds = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: %s [--plugin PATH] [--steps N] [--rounds R]\n", argv[0]);
      std::exit(2);
    }
  }
  if (o.steps <= 0 || o.rounds <= 0) {
    std::fprintf(stderr, "--steps and --rounds must be positive\n");
    std::exit(2);
  }
  return o;
}

// The best of `rounds` rounds of `steps` steps of `direction`, in ns per step.
double time_steps(ncclProfiler_v5_t* p, void* comm, void* op, bool send, const Options& o) {
  const int states[2][3] = {{ncclProfilerProxyStepRecvWait, ncclProfilerProxyStepRecvFlushWait,
                             ncclProfilerProxyStepRecvGPUWait},
                            {ncclProfilerProxyStepSendGPUWait, ncclProfilerProxyStepSendPeerWait_v4,
                             ncclProfilerProxyStepSendWait}};
  ncclProfilerEventDescr_v5_t d{};
  d.type = ncclProfileProxyStep;
  d.parentObj = op;
  ncclProfilerEventStateArgs_v5_t args{};
  args.proxyStep.transSize = 512 * 1024;
  double best = 1e300;
  for (int r = 0; r < o.rounds; ++r) {
    const auto start = Clock::now();
    for (long i = 0; i < o.steps; ++i) {
      void* step = nullptr;
      d.proxyStep.step = static_cast<int>(i);
      p->startEvent(comm, &step, &d);
      // NCCL records states and stops only handles it got.
      if (step != nullptr) {
        for (int state : states[send]) p->recordEventState(step, state, &args);
        p->stopEvent(step);
      }
    }
    const std::chrono::duration<double, std::nano> took = Clock::now() - start;
    best = std::min(best, took.count() / static_cast<double>(o.steps));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  char folder[] = "/tmp/pai-profiler-bench-XXXXXX";
  if (::mkdtemp(folder) == nullptr) return 1;
  const std::string ring = std::string(folder) + "/worker-0.rank-0.telemetry";
  pai::launcher::create_telemetry_ring(ring, 0);
  pai::launcher::create_peer_table(ring + ".peers", 0);
  ::setenv("PAI_TELEMETRY_FILE", ring.c_str(), 1);
  ::setenv("WORLD_SIZE", "2", 1);

  void* lib = ::dlopen(o.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto* p =
      lib == nullptr ? nullptr : static_cast<ncclProfiler_v5_t*>(::dlsym(lib, "ncclProfiler_v5"));
  if (p == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", o.plugin.c_str(), ::dlerror());
    return 1;
  }
  double figures[2][2] = {};  // [with table][send]
  long peer_transfers = 0;
  for (int with_table = 0; with_table < 2; ++with_table) {
    if (with_table) {
      ::setenv("PAI_TELEMETRY_PEERS_FILE", (ring + ".peers").c_str(), 1);
    } else {
      ::unsetenv("PAI_TELEMETRY_PEERS_FILE");
    }
    void* comm = nullptr;
    int mask = 0;
    p->init(&comm, 0x1, &mask, "bench", 1, 2, 0, nullptr);
    if (comm == nullptr || ((mask & ncclProfileProxyStep) != 0) != (with_table != 0)) {
      std::fprintf(stderr, "the plugin did not attach as expected (mask %x)\n", mask);
      return 1;
    }
    for (int send = 0; send < 2; ++send) {
      ncclProfilerEventDescr_v5_t d{};
      d.type = ncclProfileProxyOp;
      d.proxyOp.pid = ::getpid();
      d.proxyOp.peer = 1;
      d.proxyOp.isSend = send;
      void* op = nullptr;
      p->startEvent(comm, &op, &d);
      figures[with_table][send] = time_steps(p, comm, op, send != 0, o);
      if (op != nullptr) p->stopEvent(op);
    }
    p->finalize(comm);
  }
  for (const auto& peer : pai::launcher::PeerTableReader(ring + ".peers").read().peers) {
    peer_transfers += static_cast<long>(peer.transfers);
  }
  std::printf(
      "steps=%ld rounds=%d send_ns_per_step=%.1f send_ns_per_event=%.1f "
      "recv_ns_per_step=%.1f recv_ns_per_event=%.1f "
      "untracked_send_ns_per_step=%.1f untracked_recv_ns_per_step=%.1f transfers_recorded=%ld\n",
      o.steps, o.rounds, figures[1][1], figures[1][1] / 5, figures[1][0], figures[1][0] / 5,
      figures[0][1], figures[0][0], peer_transfers);
  ::dlclose(lib);
  std::filesystem::remove_all(folder);
  return peer_transfers == 2L * o.steps * o.rounds ? 0 : 1;
}
