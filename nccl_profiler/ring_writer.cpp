#include "nccl_profiler/ring_writer.h"

#include <fcntl.h>
#include <pai/telemetry.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace pai::nccl_profiler {
namespace {

// Guards the mapping against appends racing with the last release, and orders appends.
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
void* g_base = nullptr;  // the mapping; null while detached
std::size_t g_size = 0;
int g_fd = -1;  // holds the writer's flock
int g_uses = 0;
// A child forked from the writer shares its mapping and its lock but is not the writer.
std::atomic<bool> g_forked{false};
bool g_atfork_registered = false;

void forget_in_child() { g_forked.store(true, std::memory_order_relaxed); }

// The ring at `path` mapped writable, or null. On success `fd` holds the writer's lock.
void* attach(const char* path, int& fd, std::size_t& size) {
  fd = ::open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return nullptr;
  struct stat st {};
  pai_telemetry_header h{};
  void* base = nullptr;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      ::pread(fd, &h, sizeof h, 0) == static_cast<ssize_t>(sizeof h) &&
      h.magic == PAI_TELEMETRY_MAGIC && h.version == PAI_TELEMETRY_VERSION &&
      h.record_size == PAI_TELEMETRY_RECORD_SIZE && h.capacity != 0 &&
      (h.capacity & (h.capacity - 1)) == 0 && h.capacity <= PAI_TELEMETRY_MAX_CAPACITY &&
      static_cast<std::uint64_t>(st.st_size) == PAI_TELEMETRY_FILE_SIZE(h.capacity) &&
      ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    size = static_cast<std::size_t>(st.st_size);
    base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) base = nullptr;
  }
  if (base == nullptr) {
    ::close(fd);  // also drops a lock taken above
    fd = -1;
    return nullptr;
  }
  __atomic_store_n(&static_cast<pai_telemetry_header*>(base)->writer_pid,
                   static_cast<std::int32_t>(::getpid()), __ATOMIC_RELAXED);
  return base;
}

}  // namespace

bool ring_acquire() {
  if (g_forked.load(std::memory_order_relaxed)) return false;
  pthread_mutex_lock(&g_lock);
  if (g_base == nullptr) {
    const char* path = std::getenv("PAI_TELEMETRY_FILE");
    if (path != nullptr && *path != '\0') g_base = attach(path, g_fd, g_size);
    if (g_base != nullptr && !g_atfork_registered) {
      g_atfork_registered = ::pthread_atfork(nullptr, nullptr, forget_in_child) == 0;
    }
  }
  const bool attached = g_base != nullptr;
  if (attached) ++g_uses;
  pthread_mutex_unlock(&g_lock);
  return attached;
}

void ring_release() {
  if (g_forked.load(std::memory_order_relaxed)) return;
  pthread_mutex_lock(&g_lock);
  if (g_uses > 0 && --g_uses == 0) {
    ::munmap(g_base, g_size);
    ::close(g_fd);
    g_base = nullptr;
    g_fd = -1;
  }
  pthread_mutex_unlock(&g_lock);
}

void ring_append(std::uint16_t kind, std::uint16_t op, std::uint32_t group, std::uint64_t seq,
                 std::uint64_t bytes) {
  if (g_forked.load(std::memory_order_relaxed)) return;
  pthread_mutex_lock(&g_lock);
  if (g_base != nullptr) {
    struct timespec now {};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    pai_telemetry_record record{};
    record.time_ns = static_cast<std::uint64_t>(now.tv_sec) * 1000000000u +
                     static_cast<std::uint64_t>(now.tv_nsec);
    record.kind = kind;
    record.op = op;
    record.group = group;
    record.step = -1;
    record.collective_seq = seq;
    record.bytes = bytes;
    pai_telemetry_append(g_base, &record);
  }
  pthread_mutex_unlock(&g_lock);
}

}  // namespace pai::nccl_profiler
