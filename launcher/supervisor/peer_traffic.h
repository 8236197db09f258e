// One rank's network transfers per peer, summarized once a heartbeat: the launcher reads the
// rank's per-peer table (peer_table.h), which pai's NCCL profiler plugin keeps for the world
// communicator, and turns the cumulative figures of each (peer, direction) into those of the
// window: bytes moved, time with a transfer in flight (so a rate), and how long transfers have
// been in flight without completing (a stall). The coordinator compares them across ranks to
// name a slow or stalled link.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/supervisor/peer_table.h"

namespace pai::launcher {

/// One link of a rank in one window: the transfers to (send) or from (receive) one peer.
struct PeerLinkSummary {
  int peer = 0;              ///< its global rank
  int direction = 0;         ///< PAI_TELEMETRY_PEER_SEND (1) or PAI_TELEMETRY_PEER_RECV (2)
  std::int64_t bytes = 0;    ///< completed in the window
  std::int64_t busy_us = 0;  ///< time of the window with a transfer in flight: rate = bytes / busy
  std::int64_t stalled_ms =
      -1;  ///< in flight without a completion for that long; -1: none in flight
  bool operator==(const PeerLinkSummary&) const = default;
};

/// Follows one rank's per-peer table. Single-threaded.
///
/// Which links a summary lists, at most kMaxLinks of them: first those stalled for at least
/// kStalledMs, longest first; then sends with bytes in the window, slowest first (a send's
/// time is the network's); then receives with bytes, slowest first (a receive's time includes
/// waiting for the peer to send); then the others in flight, longest stalled first. Ties go
/// to the lower peer, then send.
class PeerTraffic {
 public:
  /// Links a summary lists.
  static constexpr std::size_t kMaxLinks = 8;
  /// In flight without a completion for this long, a link goes first: a healthy network
  /// transfer (at most a few MiB) takes milliseconds.
  static constexpr std::int64_t kStalledMs = 1000;

  /// What one window says.
  struct Window {
    std::vector<PeerLinkSummary> links;  ///< at most kMaxLinks, in the order above
    std::int64_t active = 0;  ///< links with bytes, busy time or transfers in flight in it
  };

  /// Follows the table at `path`. A table that cannot be read (missing, malformed) gives no
  /// figures, and neither does one that fails later (truncated, its header changed).
  explicit PeerTraffic(const std::string& path);
  ~PeerTraffic();
  PeerTraffic(const PeerTraffic&) = delete;
  PeerTraffic& operator=(const PeerTraffic&) = delete;

  /// The window since the previous call (or since the table was created) ending at `now_ns`
  /// (CLOCK_MONOTONIC); the next one starts there. nullopt without a readable table. A link
  /// whose counters went back (a writer that started the table over) counts what it shows
  /// now; one whose slot could not be copied consistently counts in the next window.
  std::optional<Window> window(std::int64_t now_ns);

  /// The links in flight at `now_ns`, longest stalled first, at most kMaxLinks, their window
  /// figures zero and the window left as it is; nullopt without a readable table.
  std::optional<std::vector<PeerLinkSummary>> in_flight(std::int64_t now_ns);

 private:
  struct Seen {
    std::uint64_t bytes = 0;
    std::uint64_t transfers = 0;
    std::uint64_t busy_ns = 0;
  };
  // The table's slots in use now; nullopt (and the reader dropped) when it cannot be read.
  std::optional<PeerTableRead> read();

  std::unique_ptr<PeerTableReader> reader_;
  std::map<std::pair<int, int>, Seen> seen_;  // (peer, direction): at the window's start
};

}  // namespace pai::launcher
