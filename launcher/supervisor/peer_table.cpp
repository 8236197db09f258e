#include "launcher/supervisor/peer_table.h"

#include <algorithm>
#include <string_view>

namespace pai::launcher {
namespace {

constexpr const char* kKind = "peer table";

bool valid_slots(std::uint32_t slots) {
  return slots != 0 && slots <= PAI_TELEMETRY_PEERS_MAX_SLOTS;
}

std::string bad_slots(std::uint32_t slots) {
  return "slot count " + std::to_string(slots) + " is not 1 to " +
         std::to_string(PAI_TELEMETRY_PEERS_MAX_SLOTS);
}

}  // namespace

void create_peer_table(const std::string& path, int rank, std::uint32_t slots) {
  if (!valid_slots(slots))
    throw TelemetryError(std::string(kKind) + " " + path + ": " + bad_slots(slots));
  pai_telemetry_peers_header header;
  pai_telemetry_peers_header_init(&header, slots, rank);
  create_shared_file(kKind, path,
                     std::string_view(reinterpret_cast<const char*>(&header), sizeof header),
                     PAI_TELEMETRY_PEERS_FILE_SIZE(slots));
}

PeerTableReader::PeerTableReader(const std::string& path)
    : file_(kKind, path, sizeof header_, &header_, sizeof header_) {
  if (header_.magic != PAI_TELEMETRY_PEERS_MAGIC) file_.fail("not a peer table (bad magic)");
  if (header_.version != PAI_TELEMETRY_PEERS_VERSION) {
    file_.fail("version " + std::to_string(header_.version) + ", this launcher reads version " +
               std::to_string(PAI_TELEMETRY_PEERS_VERSION));
  }
  if (header_.slot_size != PAI_TELEMETRY_PEERS_SLOT_SIZE) {
    file_.fail("slot size " + std::to_string(header_.slot_size) + ", expected " +
               std::to_string(PAI_TELEMETRY_PEERS_SLOT_SIZE));
  }
  if (!valid_slots(header_.slots)) file_.fail(bad_slots(header_.slots));
  if (file_.size() != PAI_TELEMETRY_PEERS_FILE_SIZE(header_.slots)) {
    file_.fail(std::to_string(file_.size()) + " bytes, but a table of " +
               std::to_string(header_.slots) + " slots has " +
               std::to_string(PAI_TELEMETRY_PEERS_FILE_SIZE(header_.slots)));
  }
  file_.map();
}

int PeerTableReader::writer_pid() const {
  const auto* header = static_cast<const pai_telemetry_peers_header*>(file_.base());
  return __atomic_load_n(&header->writer_pid, __ATOMIC_RELAXED);
}

PeerTableRead PeerTableReader::read() const {
  file_.check_size();
  const auto* now = static_cast<const pai_telemetry_peers_header*>(file_.base());
  if (__atomic_load_n(&now->magic, __ATOMIC_RELAXED) != header_.magic ||
      __atomic_load_n(&now->version, __ATOMIC_RELAXED) != header_.version ||
      __atomic_load_n(&now->slot_size, __ATOMIC_RELAXED) != header_.slot_size ||
      __atomic_load_n(&now->slots, __ATOMIC_RELAXED) != header_.slots ||
      __atomic_load_n(&now->rank, __ATOMIC_RELAXED) != header_.rank) {
    file_.fail("header changed while mapped");
  }
  PeerTableRead out;
  const std::uint32_t used = std::min(pai_telemetry_peers_load_used(file_.base()), header_.slots);
  out.peers.reserve(used);
  for (std::uint32_t i = 0; i < used; ++i) {
    pai_telemetry_peer copy;
    int tries = 0;
    while (tries < kTries && !pai_telemetry_peer_read(file_.base(), i, &copy)) ++tries;
    if (tries < kTries) {
      out.peers.push_back(copy);
    } else {
      ++out.torn;
    }
  }
  out.unplaced = __atomic_load_n(&now->unplaced, __ATOMIC_RELAXED);
  out.dropped = __atomic_load_n(&now->dropped, __ATOMIC_RELAXED);
  return out;
}

}  // namespace pai::launcher
