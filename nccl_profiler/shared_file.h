// A file the plugin writes through a shared mapping (the telemetry ring, the per-peer table of
// include/pai/telemetry.h), attached by the rules both follow: named by an environment
// variable, a regular file whose header says what it is, one writer chosen by flock, and
// nothing written by a process forked from that writer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pai::nccl_profiler {

/// A writer's mapping of one file; all zero (base null, fd -1) while detached.
struct SharedFile {
  void* base = nullptr;
  std::size_t size = 0;
  int fd = -1;  ///< holds the writer's flock
};

/// Bytes of header a HeaderCheck gets: both files have 64-byte headers.
inline constexpr std::size_t kSharedHeaderSize = 64;

/// Whether a file whose first kSharedHeaderSize bytes are `header` and whose size is
/// `file_size` is one this writer can write.
using HeaderCheck = bool (*)(const void* header, std::uint64_t file_size);

/// Attaches `file` (detached) to the file named by $`variable`: opens it (no symlink followed,
/// no FIFO waited on), accepts it when it is a regular file `check` accepts, takes the writer's
/// lock (flock LOCK_EX | LOCK_NB) and maps it whole, shared and writable. False, with nothing
/// held, without the variable, for a file `check` refuses, when another writer holds the lock,
/// or in a process forked from a writer. Never throws.
bool attach_shared_file(const char* variable, HeaderCheck check, SharedFile& file);

/// Unmaps and closes `file` (which drops the writer's lock); a detached one stays so.
void detach_shared_file(SharedFile& file);

/// True in a process forked from one that attached a file: it shares the parent's mappings and
/// locks but is not the writer, so it must neither write nor unmap what it inherited.
bool forked_from_writer();

/// CLOCK_MONOTONIC in nanoseconds, the clock of both files.
std::uint64_t monotonic_ns();

}  // namespace pai::nccl_profiler
