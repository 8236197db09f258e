// The per-rank telemetry ring (include/pai/telemetry.h): the launcher creates one file per rank
// and attempt, the rank appends step and collective records to it through a shared mapping,
// and the launcher reads them back here without a system call per record.
#pragma once

#include <pai/telemetry.h>

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/supervisor/mapped_file.h"

namespace pai::launcher {

/// Creates the ring of global rank `rank` at `path`: a fresh file (whatever was at `path` is
/// removed first, so a process of an earlier attempt that still maps the old file cannot write
/// into the new one), mode 0600, sparse, PAI_TELEMETRY_FILE_SIZE(capacity) bytes, the header
/// written and head 0. `capacity` must be a power of two up to PAI_TELEMETRY_MAX_CAPACITY.
/// Throws TelemetryError (disk full, out of descriptors, ...); then nothing is left at `path`.
void create_telemetry_ring(const std::string& path, int rank,
                           std::uint32_t capacity = PAI_TELEMETRY_DEFAULT_CAPACITY);

/// Sets the drill's hold of the ring at `path` (include/pai/telemetry.h, "The drill's hold"):
/// its writer stays inside the collectives it completes until `until_ns` (CLOCK_MONOTONIC);
/// 0 clears it. Throws TelemetryError (the file is gone, not a regular file, too short).
void set_drill_hold(const std::string& path, std::uint64_t until_ns);

/// What one TelemetryReader::poll() found.
struct TelemetryPoll {
  /// The records written since the previous poll that could still be read, oldest first;
  /// each one's seq is its index + 1.
  std::vector<pai_telemetry_record> records;
  /// Records written since the previous poll that could not be read: overwritten before this
  /// poll (the writer lapped the reader), or being overwritten while it read them.
  std::uint64_t lost = 0;
};

/// Follows one ring, mapped read-only. Single-threaded; several readers of a ring may coexist.
class TelemetryReader {
 public:
  /// Maps the ring at `path` and checks its header: magic, version, record size, a capacity
  /// that is a power of two up to PAI_TELEMETRY_MAX_CAPACITY, and a file of exactly the size
  /// that capacity needs. Throws TelemetryError naming the file and the first problem. Reading
  /// starts at record 0.
  explicit TelemetryReader(const std::string& path);
  TelemetryReader(const TelemetryReader&) = delete;
  TelemetryReader& operator=(const TelemetryReader&) = delete;

  /// The records written since the previous poll (see TelemetryPoll). Never blocks. Throws
  /// TelemetryError when the file was truncated since it was mapped (reading it would fault);
  /// a truncation racing with the copy itself cannot be caught, but no writer has a reason to
  /// resize its ring.
  TelemetryPoll poll();

  const std::string& path() const { return file_.path(); }
  /// The global rank in the header.
  int rank() const { return header_.rank; }
  /// Records the ring holds.
  std::uint32_t capacity() const { return header_.capacity; }
  /// The pid its writer stored when it attached; 0 while none has.
  int writer_pid() const;
  /// Records ever written (the head), as of now.
  std::uint64_t written() const;
  /// The index of the next record poll() will look at.
  std::uint64_t next() const { return next_; }

 private:
  pai_telemetry_header header_;  // as checked when mapped: the writer can change the file's
  MappedFile file_;
  std::uint64_t next_ = 0;
};

}  // namespace pai::launcher
