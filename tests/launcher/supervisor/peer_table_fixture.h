// A rank's per-peer table written as its writer writes it (a shared mapping, the seqlock of
// include/pai/telemetry.h), for the tests of what the launcher reads from it.
#pragma once

#include <pai/telemetry.h>

#include <cstdint>
#include <string>

#include "support/writable_mapping.h"

namespace peer_table_fixture {

/// The table at `path` mapped writable and shared.
class TableWriter {
 public:
  explicit TableWriter(const std::string& path) : mapping_(path) {}

  pai_telemetry_peers_header* header() const {
    return static_cast<pai_telemetry_peers_header*>(mapping_.base());
  }
  pai_telemetry_peer* slot(std::uint32_t i) const {
    return pai_telemetry_peers_slot(mapping_.base(), i);
  }
  /// Writes `value` (its seq ignored) into slot `i` and makes the slots up to it used.
  void set(std::uint32_t i, const pai_telemetry_peer& value) const {
    pai_telemetry_peer* p = slot(i);
    pai_telemetry_peer_write_begin(p);
    const std::uint64_t seq = p->seq;
    *p = value;
    p->seq = seq;
    pai_telemetry_peer_write_end(p);
    if (header()->used <= i) __atomic_store_n(&header()->used, i + 1, __ATOMIC_RELEASE);
  }

 private:
  pai::testing::WritableMapping mapping_;
};

/// A slot's content: `peer` and `direction`, the rest zero.
inline pai_telemetry_peer link(int peer, int direction) {
  pai_telemetry_peer p{};
  p.peer = peer;
  p.direction = static_cast<std::uint16_t>(direction);
  return p;
}

}  // namespace peer_table_fixture
