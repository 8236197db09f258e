// libpai-nccl-profiler.so: NCCL's profiler plugin interface (nccl_profiler_api.h) on top of
// the rank's telemetry ring, so NCCL jobs without pai's SDK still tell the launcher which
// collective each rank is in, and of the rank's per-peer table, so that they tell how fast
// and whether data moves to and from each peer over the network. NCCL loads it from
// NCCL_PROFILER_PLUGIN, which pai-launch sets when the spec asks
// (faultTolerance.diagnosis.ncclProfiler). Exports ncclProfiler_v5 and ncclProfiler_v4 only.
#include <pthread.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "nccl_profiler/communicator.h"
#include "nccl_profiler/nccl_profiler_api.h"
#include "nccl_profiler/ring_writer.h"
#include "nccl_profiler/shared_file.h"
#include "nccl_profiler/transfers.h"

namespace pai::nccl_profiler {
namespace {

// Guards the ring's uses and the claim on the world group across communicators.
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
const Communicator* g_world = nullptr;
// The world communicator's transfers per peer. Never destroyed: a process may exit (and run
// static destructors) while NCCL's proxy thread still sends events.
alignas(Transfers) unsigned char g_transfers_storage[sizeof(Transfers)];
Transfers& g_transfers = *new (g_transfers_storage) Transfers(monotonic_ns);

constexpr int kCollectiveEvents = ncclProfileColl | ncclProfileKernelCh;
constexpr int kTransferEvents = ncclProfileProxyOp | ncclProfileProxyStep;
constexpr int kNcclLogInfo = 3;
constexpr unsigned long kNcclInit = 1;

// WORLD_SIZE of pai's env contract (and torchrun's); 0 when unset or not a number.
long world_size() {
  const char* text = std::getenv("WORLD_SIZE");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  return *end == '\0' && n > 0 ? n : 0;
}

// Groups other than the world's: a 32-bit id from NCCL's communicator id (the same on every
// rank of the communicator), with the top bit set like pai.telemetry's named groups.
std::uint32_t group_of(std::uint64_t comm_id) {
  return static_cast<std::uint32_t>(comm_id ^ (comm_id >> 32)) | 0x80000000u;
}

ncclResult_t init(void** context, int* mask, std::uint64_t comm_id, int nranks,
                  ncclDebugLogger_t log) {
  if (context == nullptr) return ncclSuccess;
  *context = nullptr;
  pthread_mutex_lock(&g_lock);
  // NCCL keeps one activation mask for the process, given to every init: a communicator that
  // finds the ring must not turn events off for another, so bits are only ever added.
  if (!ring_acquire()) {
    pthread_mutex_unlock(&g_lock);
    return ncclSuccess;
  }
  const bool world = g_world == nullptr && nranks > 0 && nranks == world_size();
  Communicator* comm = Communicator::create(world ? 0 : group_of(comm_id), nranks > 1);
  bool peers = false;
  if (comm == nullptr) {
    ring_release();
  } else if (world) {
    g_world = comm;
    // Its ranks are the global ranks: the only communicator whose peers the table can name.
    peers = g_transfers.attach(comm, nranks);
  }
  pthread_mutex_unlock(&g_lock);
  if (mask != nullptr && comm != nullptr) {
    *mask |= kCollectiveEvents | (peers ? kTransferEvents : 0);
  }
  *context = comm;
  if (comm != nullptr && log != nullptr) {
    log(kNcclLogInfo, kNcclInit, __FILE__, __LINE__,
        "PROFILER/Plugin: pai records the collectives of communicator %lx (%d ranks) as "
        "telemetry group %u%s",
        static_cast<unsigned long>(comm_id), nranks, comm->group(),
        peers ? ", and its network transfers per peer" : "");
  }
  return ncclSuccess;
}

ncclResult_t finalize(void* context) {
  auto* comm = static_cast<Communicator*>(context);
  if (comm == nullptr) return ncclSuccess;
  pthread_mutex_lock(&g_lock);
  if (g_world == comm) {
    g_world = nullptr;
    g_transfers.detach(comm);
  }
  Communicator::destroy(comm);
  ring_release();
  pthread_mutex_unlock(&g_lock);
  return ncclSuccess;
}

// The v4 and v5 descriptors differ only in the width of `type`.
template <typename Descr>
ncclResult_t start_event(void* context, void** handle, Descr* descr) {
  if (handle == nullptr) return ncclSuccess;
  *handle = nullptr;
  auto* comm = static_cast<Communicator*>(context);
  if (comm == nullptr || descr == nullptr) return ncclSuccess;
  // Proxy events before anything reads `comm`: under PXN this process's proxy thread runs
  // operations of other processes, with their contexts.
  if (descr->type == ncclProfileProxyOp) {
    *handle = g_transfers.op_started(context, descr->proxyOp.pid, descr->proxyOp.peer,
                                     descr->proxyOp.isSend != 0);
  } else if (descr->type == ncclProfileProxyStep) {
    *handle = g_transfers.step_started(descr->parentObj);
  } else if (descr->type == ncclProfileColl) {
    *handle = comm->collective_started(descr->coll.func, descr->coll.count, descr->coll.datatype);
  } else if (descr->type == ncclProfileKernelCh) {
    *handle = comm->kernel_started(descr->parentObj);
  }
  return ncclSuccess;
}

ncclResult_t stop_event(void* handle) {
  if (!g_transfers.stopped(handle)) Communicator::event_stopped(handle);
  return ncclSuccess;
}

ncclResult_t record_event_state(void* handle, ncclProfilerEventState_t state,
                                ncclProfilerEventStateArgs* args) {
  g_transfers.state_recorded(handle, state, args);
  return ncclSuccess;
}

ncclResult_t init_v4(void** context, int* mask, const char*, std::uint64_t comm_hash, int,
                     int nranks, int, ncclDebugLogger_t log) {
  return init(context, mask, comm_hash, nranks, log);
}

ncclResult_t init_v5(void** context, std::uint64_t comm_id, int* mask, const char*, int, int nranks,
                     int, ncclDebugLogger_t log) {
  return init(context, mask, comm_id, nranks, log);
}

}  // namespace
}  // namespace pai::nccl_profiler

// The symbols NCCL looks up, newest first.
extern "C" {
__attribute__((visibility("default"))) ncclProfiler_v5_t ncclProfiler_v5 = {
    "pai-telemetry",
    pai::nccl_profiler::init_v5,
    pai::nccl_profiler::start_event<ncclProfilerEventDescr_v5_t>,
    pai::nccl_profiler::stop_event,
    pai::nccl_profiler::record_event_state,
    pai::nccl_profiler::finalize,
};
__attribute__((visibility("default"))) ncclProfiler_v4_t ncclProfiler_v4 = {
    "pai-telemetry",
    pai::nccl_profiler::init_v4,
    pai::nccl_profiler::start_event<ncclProfilerEventDescr_v4_t>,
    pai::nccl_profiler::stop_event,
    pai::nccl_profiler::record_event_state,
    pai::nccl_profiler::finalize,
};
}
