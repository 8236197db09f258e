#include "nccl_profiler/ring_writer.h"

#include <pai/telemetry.h>
#include <pthread.h>
#include <unistd.h>

#include <cstring>

#include "nccl_profiler/shared_file.h"

namespace pai::nccl_profiler {
namespace {

// Guards the mapping against appends racing with the last release, and orders appends.
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
SharedFile g_ring;  // detached: base null
int g_uses = 0;

// The header and size checks pai.telemetry makes.
bool valid_ring(const void* header, std::uint64_t file_size) {
  pai_telemetry_header h;
  std::memcpy(&h, header, sizeof h);
  return h.magic == PAI_TELEMETRY_MAGIC && h.version == PAI_TELEMETRY_VERSION &&
         h.record_size == PAI_TELEMETRY_RECORD_SIZE && h.capacity != 0 &&
         (h.capacity & (h.capacity - 1)) == 0 && h.capacity <= PAI_TELEMETRY_MAX_CAPACITY &&
         file_size == PAI_TELEMETRY_FILE_SIZE(h.capacity);
}

}  // namespace

bool ring_acquire() {
  if (forked_from_writer()) return false;
  pthread_mutex_lock(&g_lock);
  if (g_ring.base == nullptr && attach_shared_file("PAI_TELEMETRY_FILE", valid_ring, g_ring)) {
    __atomic_store_n(&static_cast<pai_telemetry_header*>(g_ring.base)->writer_pid,
                     static_cast<std::int32_t>(::getpid()), __ATOMIC_RELAXED);
  }
  const bool attached = g_ring.base != nullptr;
  if (attached) ++g_uses;
  pthread_mutex_unlock(&g_lock);
  return attached;
}

void ring_release() {
  if (forked_from_writer()) return;
  pthread_mutex_lock(&g_lock);
  if (g_uses > 0 && --g_uses == 0) detach_shared_file(g_ring);
  pthread_mutex_unlock(&g_lock);
}

void ring_append(std::uint16_t kind, std::uint16_t op, std::uint32_t group, std::uint64_t seq,
                 std::uint64_t bytes) {
  if (forked_from_writer()) return;
  pthread_mutex_lock(&g_lock);
  if (g_ring.base != nullptr) {
    pai_telemetry_record record{};
    record.time_ns = monotonic_ns();
    record.kind = kind;
    record.op = op;
    record.group = group;
    record.step = -1;
    record.collective_seq = seq;
    record.bytes = bytes;
    pai_telemetry_append(g_ring.base, &record);
  }
  pthread_mutex_unlock(&g_lock);
}

}  // namespace pai::nccl_profiler
