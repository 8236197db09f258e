// The per-peer table of a rank (include/pai/telemetry.h, "The per-peer table"): the launcher
// creates it next to the rank's telemetry ring, pai's NCCL profiler plugin in the rank counts
// the network transfers to and from each peer in it, and the launcher reads its slots back
// here with seqlock-consistent copies.
#pragma once

#include <pai/telemetry.h>

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/supervisor/mapped_file.h"

namespace pai::launcher {

/// Creates the per-peer table of global rank `rank` at `path`: a fresh file (as
/// create_telemetry_ring), mode 0600, sparse, PAI_TELEMETRY_PEERS_FILE_SIZE(slots) bytes, its
/// header written and no slot used. `slots` is 1 .. PAI_TELEMETRY_PEERS_MAX_SLOTS. Throws
/// TelemetryError; then nothing is left at `path`.
void create_peer_table(const std::string& path, int rank,
                       std::uint32_t slots = PAI_TELEMETRY_PEERS_DEFAULT_SLOTS);

/// What one PeerTableReader::read() found.
struct PeerTableRead {
  /// Consistent copies of the slots in use, in slot order.
  std::vector<pai_telemetry_peer> peers;
  /// Slots in use that were being written at every try (read them next time).
  std::uint32_t torn = 0;
  /// The header's counters: transfers and events the writer could not record.
  std::uint64_t unplaced = 0;
  std::uint64_t dropped = 0;
};

/// Reads one per-peer table, mapped read-only. Single-threaded; never blocks the writer.
class PeerTableReader {
 public:
  /// Tries to copy a slot being written this many times before calling it torn.
  static constexpr int kTries = 4;

  /// Maps the table at `path` and checks its header: magic, version, slot size, a slot count
  /// of 1 .. PAI_TELEMETRY_PEERS_MAX_SLOTS and a file of exactly the size it needs. Throws
  /// TelemetryError naming the file and the first problem.
  explicit PeerTableReader(const std::string& path);

  /// The slots in use now (at most the slot count checked when mapped). Throws TelemetryError
  /// when the file was truncated since (reading it would fault), or when its header no longer
  /// says what it said then (magic, version, slot size, slot count, rank): not the table that
  /// was mapped, whatever its slots say.
  PeerTableRead read() const;

  const std::string& path() const { return file_.path(); }
  /// The global rank in the header.
  int rank() const { return header_.rank; }
  /// Slots the table has.
  std::uint32_t slots() const { return header_.slots; }
  /// The pid its writer stored when it attached; 0 while none has.
  int writer_pid() const;

 private:
  pai_telemetry_peers_header header_;  // as checked when mapped
  MappedFile file_;
};

}  // namespace pai::launcher
