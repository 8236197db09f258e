// The writing end of the per-peer table (include/pai/telemetry.h, "The per-peer table"): the
// slot of each (peer, direction) and its figures, updated in place as transfers start and end.
#pragma once

#include <pai/telemetry.h>

#include <cstdint>

namespace pai::nccl_profiler {

/// A per-peer table mapped writable, as its one writer sees it. Not thread-safe: its owner
/// serializes every call. Allocates only in attach() (its index of slots, 16 KiB).
class PeerTable {
 public:
  /// Whether a file whose first 64 bytes are `header` and whose size is `file_size` is a
  /// table this writer can write: magic, version, slot size, 1 .. PAI_TELEMETRY_PEERS_MAX_SLOTS
  /// slots, and exactly the size they need.
  static bool valid(const void* header, std::uint64_t file_size);

  PeerTable() = default;
  ~PeerTable();
  PeerTable(const PeerTable&) = delete;
  PeerTable& operator=(const PeerTable&) = delete;

  /// Takes over the table mapped at `base`, `size` bytes, whose header valid() accepted: the
  /// slots an earlier writer gave keep their peers and their counters continue; the
  /// transfers it left in flight are ended without counting their open interval (when they
  /// ended is unknown). Never writes past `size`, whatever the header says by then. False
  /// when out of memory; then the table is not attached.
  bool attach(void* base, std::uint64_t size);
  /// Ends every transfer still in flight at `now_ns` (busy until then, not completed) and
  /// forgets the table. Does nothing when not attached.
  void detach(std::uint64_t now_ns);
  bool attached() const { return header_ != nullptr; }

  /// The slot of (`peer`, `direction`), given on first use; -1 when every slot is taken (the
  /// header's `unplaced` counts it).
  int slot(std::int32_t peer, std::uint16_t direction);
  /// A transfer of `slot` started at `now_ns`.
  void started(int slot, std::uint64_t now_ns);
  /// A transfer of `slot` in flight completed at `now_ns` with `bytes`.
  void completed(int slot, std::uint64_t bytes, std::uint64_t now_ns);
  /// A transfer of `slot` in flight ended at `now_ns` without completing.
  void abandoned(int slot, std::uint64_t now_ns);
  /// Counts in the header's `dropped` an event that could not be recorded.
  void count_dropped();

 private:
  static constexpr std::uint32_t kIndexSize = 2 * PAI_TELEMETRY_PEERS_MAX_SLOTS;

  pai_telemetry_peer& at(int slot) const { return *pai_telemetry_peers_slot(header_, slot); }
  // The index entry of (peer, direction): the one holding its slot + 1, or the free one
  // where it goes.
  std::uint16_t& entry(std::int32_t peer, std::uint16_t direction) const;
  // One transfer of `p` ended at `now_ns`; the caller is writing `p`.
  static void end_one(pai_telemetry_peer& p, std::uint64_t now_ns);

  pai_telemetry_peers_header* header_ = nullptr;
  std::uint32_t slots_ = 0;
  std::uint32_t used_ = 0;
  std::uint16_t* index_ = nullptr;  // kIndexSize entries: slot + 1, 0 when free
};

}  // namespace pai::nccl_profiler
