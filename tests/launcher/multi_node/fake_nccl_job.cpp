// A rank of a "NCCL" job for the multi-node tests of the NIC and transfer evidence: it loads
// pai's NCCL profiler plugin from NCCL_PROFILER_PLUGIN as NCCL does and calls its real entry
// points as NCCL 2.28.9 does (event shapes and state order from a real trace: v5 init of the
// world communicator; per all-reduce a Coll event, a kernel channel, and on the proxy thread a
// ProxyOp to the ring's next rank (send) and one from its previous rank (receive), each with 4
// ProxyStep transfers of 512 KiB: send SendGPUWait, SendPeerWait, SendWait, stop; receive
// RecvWait, RecvFlushWait, RecvGPUWait, stop). No GPU, no NCCL, no TCP between the ranks: the
// transfers are sleeps, `factor` times longer on a link one of whose ends is a slow rank, and
// every rank's collective lasts as long as the slowest rank's, as a ring makes it (the fast
// ranks wait inside the collective, outside their transfers).
//
//   fake_nccl_job SECONDS [SLOW_RANK [FACTOR]]     (RANK, WORLD_SIZE from pai's env contract)
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "nccl_profiler/nccl_profiler_api.h"

namespace {

using Clock = std::chrono::steady_clock;

int env_int(const char* name) {
  const char* text = std::getenv(name);
  return text == nullptr ? -1 : std::atoi(text);
}

struct Profiler {
  ncclProfiler_v5_t* api = nullptr;
  void* context = nullptr;

  void* start(ncclProfilerEventDescr_v5_t& d, void* ctx) {
    void* handle = nullptr;
    api->startEvent(ctx, &handle, &d);
    return handle;
  }
  void state(void* handle, int state, std::size_t size) {
    if (handle == nullptr) return;
    ncclProfilerEventStateArgs args{};
    args.proxyStep.transSize = size;
    api->recordEventState(handle, state, &args);
  }
  void stop(void* handle) {
    if (handle != nullptr) api->stopEvent(handle);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fake_nccl_job SECONDS [SLOW_RANK [FACTOR]]\n");
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const int slow = argc > 2 ? std::atoi(argv[2]) : -1;
  const int factor = argc > 3 ? std::atoi(argv[3]) : 5;
  const int rank = env_int("RANK");
  const int world = env_int("WORLD_SIZE");
  const char* plugin = std::getenv("NCCL_PROFILER_PLUGIN");
  if (rank < 0 || world < 2 || plugin == nullptr) {
    std::fprintf(stderr, "fake_nccl_job: needs RANK, WORLD_SIZE >= 2 and NCCL_PROFILER_PLUGIN\n");
    return 2;
  }
  void* lib = ::dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
  Profiler p;
  p.api =
      lib == nullptr ? nullptr : static_cast<ncclProfiler_v5_t*>(::dlsym(lib, "ncclProfiler_v5"));
  if (p.api == nullptr) {
    std::fprintf(stderr, "fake_nccl_job: cannot load %s: %s\n", plugin, ::dlerror());
    return 1;
  }
  int mask = 0;
  p.api->init(&p.context, 0x5eedull, &mask, "world", world, world, rank, nullptr);
  const int next = (rank + 1) % world;
  const int prev = (rank + world - 1) % world;
  const auto step_time = [&](int a, int b) {
    return std::chrono::microseconds(a == slow || b == slow ? 1500 * factor : 1500);
  };
  // The slowest rank's 4 sends and 4 receives.
  const auto ring_time = 8 * std::chrono::microseconds(slow >= 0 ? 1500 * factor : 1500);
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  int collectives = 0;
  while (Clock::now() < end) {
    ncclProfilerEventDescr_v5_t coll{};
    coll.type = ncclProfileColl;
    coll.coll.func = "AllReduce";
    coll.coll.count = 1 << 20;
    coll.coll.datatype = "ncclFloat32";
    coll.coll.nChannels = 1;
    void* c = p.start(coll, p.context);
    p.stop(c);  // enqueued
    ncclProfilerEventDescr_v5_t kernel{};
    kernel.type = ncclProfileKernelCh;
    kernel.parentObj = c;
    void* k = p.start(kernel, p.context);
    const auto collective_start = Clock::now();
    for (const bool send : {true, false}) {
      ncclProfilerEventDescr_v5_t op{};
      op.type = ncclProfileProxyOp;
      op.rank = rank;
      op.proxyOp.pid = ::getpid();
      op.proxyOp.peer = send ? next : prev;
      op.proxyOp.nSteps = 4;
      op.proxyOp.chunkSize = 4 << 20;
      op.proxyOp.isSend = send ? 1 : 0;
      void* o = p.start(op, p.context);
      const auto took = send ? step_time(rank, next) : step_time(prev, rank);
      for (int s = 0; s < 4; ++s) {
        ncclProfilerEventDescr_v5_t step{};
        step.type = ncclProfileProxyStep;
        step.parentObj = o;
        step.rank = rank;
        step.proxyStep.step = s;
        void* h = p.start(step, p.context);
        if (send) {
          p.state(h, ncclProfilerProxyStepSendGPUWait, 0);
          p.state(h, ncclProfilerProxyStepSendPeerWait_v4, 0);
          p.state(h, ncclProfilerProxyStepSendWait, 512 << 10);
          std::this_thread::sleep_for(took);
          p.stop(h);
        } else {
          p.state(h, ncclProfilerProxyStepRecvWait, 0);
          std::this_thread::sleep_for(took);
          p.state(h, ncclProfilerProxyStepRecvFlushWait, 512 << 10);
          p.state(h, ncclProfilerProxyStepRecvGPUWait, 512 << 10);
          p.stop(h);
        }
      }
      p.stop(o);
    }
    std::this_thread::sleep_until(collective_start + ring_time);  // waiting on the ring
    p.stop(k);  // the GPU work is done: the collective exits
    ++collectives;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // "compute"
  }
  p.api->finalize(p.context);
  std::printf("rank %d: %d all-reduces\n", rank, collectives);
  return 0;
}
