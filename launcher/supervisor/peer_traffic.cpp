#include "launcher/supervisor/peer_traffic.h"

#include <algorithm>
#include <limits>

namespace pai::launcher {
namespace {

std::int64_t clamp64(std::uint64_t v) {
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return static_cast<std::int64_t>(std::min(v, kMax));
}

// Where a link goes in a summary: lower first.
int rank_of(const PeerLinkSummary& link) {
  if (link.stalled_ms >= PeerTraffic::kStalledMs) return 0;
  if (link.bytes > 0) return link.direction == PAI_TELEMETRY_PEER_SEND ? 1 : 2;
  return 3;
}

bool before(const PeerLinkSummary& a, const PeerLinkSummary& b) {
  const int ra = rank_of(a);
  const int rb = rank_of(b);
  if (ra != rb) return ra < rb;
  if (ra == 1 || ra == 2) {
    // Slower first: a.bytes / a.busy_us < b.bytes / b.busy_us, exactly; no busy time counts
    // as infinitely fast.
    const __int128 left = static_cast<__int128>(a.bytes) * b.busy_us;
    const __int128 right = static_cast<__int128>(b.bytes) * a.busy_us;
    if (left != right) return left < right;
  } else if (a.stalled_ms != b.stalled_ms) {
    return a.stalled_ms > b.stalled_ms;
  }
  if (a.peer != b.peer) return a.peer < b.peer;
  return a.direction < b.direction;
}

// The first kMaxLinks of `links` in summary order.
std::vector<PeerLinkSummary> first_links(std::vector<PeerLinkSummary> links) {
  const std::size_t n = std::min(links.size(), PeerTraffic::kMaxLinks);
  std::partial_sort(links.begin(), links.begin() + static_cast<std::ptrdiff_t>(n), links.end(),
                    before);
  links.resize(n);
  return links;
}

bool valid_link(const pai_telemetry_peer& p) {
  return p.peer >= 0 &&
         (p.direction == PAI_TELEMETRY_PEER_SEND || p.direction == PAI_TELEMETRY_PEER_RECV);
}

std::int64_t stalled_ms(const pai_telemetry_peer& p, std::uint64_t now) {
  const std::int64_t ns = pai_telemetry_peer_stalled_ns(&p, now);
  return ns < 0 ? -1 : ns / 1'000'000;
}

}  // namespace

PeerTraffic::PeerTraffic(const std::string& path) {
  try {
    reader_ = std::make_unique<PeerTableReader>(path);
  } catch (const TelemetryError&) {
    // An aid to diagnosis: a rank without a readable table just has no figures.
  }
}

PeerTraffic::~PeerTraffic() = default;

std::optional<PeerTableRead> PeerTraffic::read() {
  if (!reader_) return std::nullopt;
  try {
    return reader_->read();
  } catch (const TelemetryError&) {
    reader_.reset();  // truncated under the mapping, or another file's header: reading on is
                      // a fault or nonsense
    return std::nullopt;
  }
}

std::optional<PeerTraffic::Window> PeerTraffic::window(std::int64_t now_ns) {
  std::optional<PeerTableRead> table = read();
  if (!table) return std::nullopt;
  const auto now = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ns, 0));
  Window out;
  std::vector<PeerLinkSummary> links;
  for (const pai_telemetry_peer& p : table->peers) {
    if (!valid_link(p)) continue;
    Seen& seen = seen_[{p.peer, p.direction}];
    // Counters that went back belong to a writer that started over: all they show is new.
    if (p.bytes < seen.bytes || p.transfers < seen.transfers) seen = Seen{};
    const std::uint64_t busy = pai_telemetry_peer_busy_ns(&p, now);
    const std::uint64_t bytes = p.bytes - seen.bytes;
    // busy() never goes back for a writer that keeps the protocol; one that does cannot make
    // a window's figure negative.
    const std::uint64_t busy_ns = busy > seen.busy_ns ? busy - seen.busy_ns : 0;
    seen = Seen{p.bytes, p.transfers, std::max(busy, seen.busy_ns)};
    if (bytes == 0 && busy_ns == 0 && p.in_flight == 0) continue;
    ++out.active;
    links.push_back(PeerLinkSummary{p.peer, p.direction, clamp64(bytes), clamp64(busy_ns / 1000),
                                    stalled_ms(p, now)});
  }
  out.links = first_links(std::move(links));
  return out;
}

std::optional<std::vector<PeerLinkSummary>> PeerTraffic::in_flight(std::int64_t now_ns) {
  std::optional<PeerTableRead> table = read();
  if (!table) return std::nullopt;
  const auto now = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ns, 0));
  std::vector<PeerLinkSummary> links;
  for (const pai_telemetry_peer& p : table->peers) {
    if (!valid_link(p) || p.in_flight == 0) continue;
    links.push_back(PeerLinkSummary{p.peer, p.direction, 0, 0, stalled_ms(p, now)});
  }
  // No bytes: ordered by stall, longest first.
  return first_links(std::move(links));
}

}  // namespace pai::launcher
