#include "nccl_profiler/shared_file.h"

#include <fcntl.h>
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

std::atomic<bool> g_forked{false};
pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

void forget_in_child() { g_forked.store(true, std::memory_order_relaxed); }
void watch_forks() { ::pthread_atfork(nullptr, nullptr, forget_in_child); }

}  // namespace

bool attach_shared_file(const char* variable, HeaderCheck check, SharedFile& file) {
  if (forked_from_writer() || file.base != nullptr) return false;
  const char* path = std::getenv(variable);
  if (path == nullptr || *path == '\0') return false;
  const int fd = ::open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st {};
  unsigned char header[kSharedHeaderSize];
  void* base = nullptr;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      ::pread(fd, header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
      check(header, static_cast<std::uint64_t>(st.st_size)) &&
      ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    base = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED,
                  fd, 0);
    if (base == MAP_FAILED) base = nullptr;
  }
  if (base == nullptr) {
    ::close(fd);  // also drops a lock taken above
    return false;
  }
  ::pthread_once(&g_atfork_once, watch_forks);
  file.base = base;
  file.size = static_cast<std::size_t>(st.st_size);
  file.fd = fd;
  return true;
}

void detach_shared_file(SharedFile& file) {
  if (file.base == nullptr || forked_from_writer()) return;
  ::munmap(file.base, file.size);
  ::close(file.fd);
  file = SharedFile{};
}

bool forked_from_writer() { return g_forked.load(std::memory_order_relaxed); }

std::uint64_t monotonic_ns() {
  struct timespec now {};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000u +
         static_cast<std::uint64_t>(now.tv_nsec);
}

}  // namespace pai::nccl_profiler
