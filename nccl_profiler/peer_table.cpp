#include "nccl_profiler/peer_table.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace pai::nccl_profiler {
namespace {

void add_one(std::uint64_t& counter) { __atomic_store_n(&counter, counter + 1, __ATOMIC_RELAXED); }

}  // namespace

bool PeerTable::valid(const void* header, std::uint64_t file_size) {
  pai_telemetry_peers_header h;
  std::memcpy(&h, header, sizeof h);
  return h.magic == PAI_TELEMETRY_PEERS_MAGIC && h.version == PAI_TELEMETRY_PEERS_VERSION &&
         h.slot_size == PAI_TELEMETRY_PEERS_SLOT_SIZE && h.slots != 0 &&
         h.slots <= PAI_TELEMETRY_PEERS_MAX_SLOTS &&
         file_size == PAI_TELEMETRY_PEERS_FILE_SIZE(h.slots);
}

PeerTable::~PeerTable() { std::free(index_); }

bool PeerTable::attach(void* base, std::uint64_t size) {
  // calloc, not new: the plugin needs nothing of libstdc++ at run time.
  index_ = static_cast<std::uint16_t*>(std::calloc(kIndexSize, sizeof *index_));
  if (index_ == nullptr) return false;
  header_ = static_cast<pai_telemetry_peers_header*>(base);
  // Read once, and bounded by the mapping: the writer holds the lock, but a header changed
  // since it was checked must not make it write past the mapping.
  const std::uint64_t fit =
      size < PAI_TELEMETRY_PEERS_SLOTS_OFFSET
          ? 0
          : (size - PAI_TELEMETRY_PEERS_SLOTS_OFFSET) / PAI_TELEMETRY_PEERS_SLOT_SIZE;
  slots_ = static_cast<std::uint32_t>(
      std::min<std::uint64_t>({header_->slots, fit, PAI_TELEMETRY_PEERS_MAX_SLOTS}));
  used_ = header_->used < slots_ ? header_->used : slots_;
  for (std::uint32_t i = 0; i < used_; ++i) {
    pai_telemetry_peer& p = at(static_cast<int>(i));
    std::uint16_t& e = entry(p.peer, p.direction);
    if (e == 0) e = static_cast<std::uint16_t>(i + 1);
    // An earlier writer that ended mid-transfer (or mid-write) left them so.
    if (p.in_flight != 0 || (p.seq & 1u) != 0) {
      pai_telemetry_peer_write_begin(&p);
      p.in_flight = 0;
      pai_telemetry_peer_write_end(&p);
    }
  }
  return true;
}

void PeerTable::detach(std::uint64_t now_ns) {
  if (header_ == nullptr) return;
  for (std::uint32_t i = 0; i < used_; ++i) {
    pai_telemetry_peer& p = at(static_cast<int>(i));
    if (p.in_flight == 0) continue;
    pai_telemetry_peer_write_begin(&p);
    p.in_flight = 1;
    end_one(p, now_ns);
    pai_telemetry_peer_write_end(&p);
  }
  std::free(index_);
  index_ = nullptr;
  header_ = nullptr;
  slots_ = used_ = 0;
}

std::uint16_t& PeerTable::entry(std::int32_t peer, std::uint16_t direction) const {
  const std::uint64_t key =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer)) << 16) | direction;
  std::uint32_t i = static_cast<std::uint32_t>((key * 0x9e3779b97f4a7c15ull) >> 51);
  static_assert(kIndexSize == 1u << 13);
  // At most half full: a free entry is always found.
  for (;; i = (i + 1) & (kIndexSize - 1)) {
    std::uint16_t& e = index_[i];
    if (e == 0) return e;
    const pai_telemetry_peer& p = at(e - 1);
    if (p.peer == peer && p.direction == direction) return e;
  }
}

int PeerTable::slot(std::int32_t peer, std::uint16_t direction) {
  std::uint16_t& e = entry(peer, direction);
  if (e != 0) return e - 1;
  if (used_ == slots_) {
    add_one(header_->unplaced);
    return -1;
  }
  const std::uint32_t i = used_;
  pai_telemetry_peer& p = at(static_cast<int>(i));
  pai_telemetry_peer_write_begin(&p);
  p.peer = peer;
  p.direction = direction;
  p.reserved0 = 0;
  p.bytes = p.transfers = p.busy_ns = p.busy_since_ns = p.last_done_ns = 0;
  p.in_flight = p.reserved1 = 0;
  pai_telemetry_peer_write_end(&p);
  used_ = i + 1;
  __atomic_store_n(&header_->used, used_, __ATOMIC_RELEASE);
  e = static_cast<std::uint16_t>(i + 1);
  return static_cast<int>(i);
}

void PeerTable::started(int slot, std::uint64_t now_ns) {
  pai_telemetry_peer& p = at(slot);
  pai_telemetry_peer_write_begin(&p);
  if (p.in_flight == 0) p.busy_since_ns = now_ns;
  if (p.in_flight < std::numeric_limits<std::uint32_t>::max()) ++p.in_flight;
  pai_telemetry_peer_write_end(&p);
}

void PeerTable::completed(int slot, std::uint64_t bytes, std::uint64_t now_ns) {
  pai_telemetry_peer& p = at(slot);
  pai_telemetry_peer_write_begin(&p);
  p.bytes += bytes;
  ++p.transfers;
  p.last_done_ns = now_ns;
  end_one(p, now_ns);
  pai_telemetry_peer_write_end(&p);
}

void PeerTable::abandoned(int slot, std::uint64_t now_ns) {
  pai_telemetry_peer& p = at(slot);
  pai_telemetry_peer_write_begin(&p);
  end_one(p, now_ns);
  pai_telemetry_peer_write_end(&p);
}

void PeerTable::count_dropped() {
  if (header_ != nullptr) add_one(header_->dropped);
}

void PeerTable::end_one(pai_telemetry_peer& p, std::uint64_t now_ns) {
  if (p.in_flight == 0) return;
  if (--p.in_flight == 0 && now_ns > p.busy_since_ns) p.busy_ns += now_ns - p.busy_since_ns;
}

}  // namespace pai::nccl_profiler
