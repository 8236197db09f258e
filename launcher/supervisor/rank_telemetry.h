// One rank's telemetry, summarized once a heartbeat (design §12): the launcher follows the
// rank's ring (telemetry_ring.h) and turns the step and collective records of each window
// into a few figures the coordinator compares across ranks: is the rank stepping, how long
// do its steps take, how much of its time is spent in world collectives, which collective is
// it stuck in, and how long has it been silent.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/supervisor/peer_traffic.h"
#include "launcher/supervisor/telemetry_ring.h"

namespace pai::launcher {

/// What one rank's ring said in one window (the time since the previous summary). Collective
/// figures count the world group (group 0) only. net::RankTelemetry is its wire form.
struct RankTelemetrySummary {
  int rank = 0;                ///< global
  std::int64_t step = -1;      ///< the last step any record named; -1: none yet
  std::int64_t steps = 0;      ///< steps that ended in the window, of those whose begin was seen
  std::int64_t step_us = 0;    ///< their durations (STEP_BEGIN to STEP_END), summed
  std::int64_t window_us = 0;  ///< the window's length
  std::int64_t comm_us = 0;    ///< time of the window with a collective open, <= window_us
  std::int64_t entered = 0;    ///< highest collective seq entered; 0: none yet
  std::int64_t exited = 0;     ///< largest n with collectives 1..n all exited, <= entered
  std::int64_t open_ms = -1;   ///< how long collective exited + 1 has been open; -1: none open
  int op = 0;                  ///< its op (pai_telemetry_op), 0..255; 0 when none is open
  std::int64_t quiet_ms = -1;  ///< since the rank's last record; -1: none yet
  std::int64_t lost = 0;       ///< records it could not account for since the rank started
  /// TcpFigures (os/tcp_stats.h) of the rank's processes, filled in by the supervisor
  std::int64_t tcp_rtt_us = -1;
  std::int64_t tcp_retrans = -1;
  /// The peers whose connections stand out as slow (policy/tcp_slow_peers.h)
  std::vector<std::string> tcp_slow_peers = {};
  /// TcpFigures::stalled_peers, at most kMaxSlowPeers of them
  std::vector<std::string> tcp_stalled_peers = {};
  /// The rank's links (the NCCL profiler's per-peer table of its world communicator) in the
  /// window, at most PeerTraffic::kMaxLinks in PeerTraffic's order: stalled, then slowest;
  /// empty without a table. standing() lists those with transfers in flight.
  std::vector<PeerLinkSummary> peers = {};
  /// Links with bytes, busy time or transfers in flight in the window; `peers` lists up to
  /// kMaxLinks of them.
  std::int64_t peer_links = 0;
  bool operator==(const RankTelemetrySummary&) const = default;
};

/// Follows one rank's ring and summarizes it a window at a time. Single-threaded.
///
/// Memory is bounded: besides the reader's mapping it keeps the collectives open now (at
/// most kMaxOpen; beyond, the lowest seq is forgotten and counted in `lost`) and the last
/// STEP_BEGIN. Sequence figures come from the records seen: a collective whose ENTER was
/// lost is not open; when the writer lapped the reader, the collectives open before the gap
/// may have exited within it, so they are forgotten (not counted in `lost`: the gap already
/// is), and so is the STEP_BEGIN from before it.
class RankTelemetry {
 public:
  using Clock = std::chrono::steady_clock;
  /// Collectives kept open at once.
  static constexpr std::size_t kMaxOpen = 4096;

  /// Follows the ring at `path` of global rank `rank`, and its per-peer table at `peers_path`
  /// when not empty; `start` begins the first window. A ring that cannot be read (missing, not
  /// a ring) gives no summaries, and so does one that fails later (truncated); a table that
  /// cannot be read gives summaries without links.
  RankTelemetry(const std::string& path, int rank, Clock::time_point start,
                const std::string& peers_path = "");
  ~RankTelemetry();
  RankTelemetry(const RankTelemetry&) = delete;
  RankTelemetry& operator=(const RankTelemetry&) = delete;

  /// Reads what the rank wrote since the previous call and summarizes the window that ends
  /// at `now` (steady_clock, which is the records' CLOCK_MONOTONIC); the next window starts
  /// there. nullopt without a readable ring, and until the rank's first record: a rank that
  /// never writes telemetry has nothing to report.
  std::optional<RankTelemetrySummary> summary(Clock::time_point now);

  /// The rank's standing at `now` for hang forensics: what summary() would say of the
  /// figures that span the rank's life (step, entered, exited, open_ms, op, quiet_ms, lost,
  /// and as `peers` the links with transfers in flight), without ending the window (the
  /// window figures are left zero). nullopt as summary().
  std::optional<RankTelemetrySummary> standing(Clock::time_point now);

 private:
  // Reads what the rank wrote since the previous read; false without a readable ring.
  bool read(std::int64_t now_ns);
  // The figures at `now_ns` (window ones included), or nullopt before the first record.
  std::optional<RankTelemetrySummary> figures(std::int64_t now_ns) const;
  struct Open {
    std::int64_t since_ns = 0;
    int op = 0;
  };

  void take(const pai_telemetry_record& record, std::int64_t now_ns);
  // Ends the stretch of time with a collective open at `end_ns` (clipped to the window).
  void count_comm(std::int64_t end_ns);
  std::int64_t exited() const;

  int rank_;
  std::unique_ptr<TelemetryReader> reader_;
  std::unique_ptr<PeerTraffic> peers_;  // null without a table
  std::int64_t window_start_ns_;
  // Since the rank started.
  std::int64_t step_ = -1;
  std::int64_t last_record_ns_ = -1;
  std::int64_t lost_ = 0;
  std::int64_t entered_ = 0;
  std::map<std::int64_t, Open> open_;  // by seq
  std::int64_t busy_since_ns_ = 0;     // when open_ last became non-empty
  std::optional<std::pair<std::int64_t, std::int64_t>> step_begin_;  // step, time
  // This window.
  std::int64_t steps_ = 0;
  std::int64_t step_ns_ = 0;
  std::int64_t comm_ns_ = 0;
};

}  // namespace pai::launcher
