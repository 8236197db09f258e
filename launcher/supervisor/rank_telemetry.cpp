#include "launcher/supervisor/rank_telemetry.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace pai::launcher {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

std::int64_t nanoseconds(RankTelemetry::Clock::time_point t) {
  return std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

}  // namespace

RankTelemetry::RankTelemetry(const std::string& path, int rank, Clock::time_point start,
                             const std::string& peers_path)
    : rank_(rank), window_start_ns_(nanoseconds(start)) {
  try {
    reader_ = std::make_unique<TelemetryReader>(path);
  } catch (const TelemetryError&) {
    // Telemetry is an aid to diagnosis: a rank without a readable ring just has none.
  }
  if (reader_ && !peers_path.empty()) peers_ = std::make_unique<PeerTraffic>(peers_path);
}

RankTelemetry::~RankTelemetry() = default;

bool RankTelemetry::read(std::int64_t now_ns) {
  if (!reader_) return false;
  TelemetryPoll poll;
  try {
    poll = reader_->poll();
  } catch (const TelemetryError&) {
    reader_.reset();  // truncated under the mapping: reading on could fault
    return false;
  }
  if (poll.lost > 0) {
    lost_ += static_cast<std::int64_t>(std::min<std::uint64_t>(poll.lost, kInt64Max - lost_));
    // The lost records are the oldest of this poll (the writer overwrites oldest first), so
    // the exits and step ends of what was open before them may be among them.
    open_.clear();
    step_begin_.reset();
  }
  for (const pai_telemetry_record& record : poll.records) take(record, now_ns);
  return true;
}

std::optional<RankTelemetrySummary> RankTelemetry::figures(std::int64_t now_ns) const {
  if (last_record_ns_ < 0 && lost_ == 0) return std::nullopt;
  RankTelemetrySummary s;
  s.rank = rank_;
  s.step = step_;
  s.steps = steps_;
  s.step_us = step_ns_ / 1000;
  s.window_us = (now_ns - window_start_ns_) / 1000;
  s.comm_us = std::min(comm_ns_ / 1000, s.window_us);
  s.entered = entered_;
  s.exited = exited();
  if (!open_.empty()) {
    const Open& oldest = open_.begin()->second;
    s.open_ms = (now_ns - oldest.since_ns) / 1'000'000;
    s.op = oldest.op;
  }
  if (last_record_ns_ >= 0) s.quiet_ms = (now_ns - last_record_ns_) / 1'000'000;
  s.lost = lost_;
  return s;
}

std::optional<RankTelemetrySummary> RankTelemetry::summary(Clock::time_point now) {
  const std::int64_t now_ns = std::max(nanoseconds(now), window_start_ns_);
  if (!read(now_ns)) return std::nullopt;
  if (!open_.empty()) count_comm(now_ns);
  std::optional<RankTelemetrySummary> out = figures(now_ns);
  // Only a window that is reported ends the links' window too: until the rank's first
  // record their figures add up.
  if (out && peers_) {
    if (auto window = peers_->window(now_ns)) {
      out->peers = std::move(window->links);
      out->peer_links = window->active;
    }
  }
  window_start_ns_ = now_ns;
  steps_ = 0;
  step_ns_ = 0;
  comm_ns_ = 0;
  return out;
}

std::optional<RankTelemetrySummary> RankTelemetry::standing(Clock::time_point now) {
  const std::int64_t now_ns = std::max(nanoseconds(now), window_start_ns_);
  if (!read(now_ns)) return std::nullopt;
  std::optional<RankTelemetrySummary> out = figures(now_ns);
  if (out) {
    out->steps = 0;
    out->step_us = 0;
    out->window_us = 0;
    out->comm_us = 0;
    if (peers_) out->peers = peers_->in_flight(now_ns).value_or(std::vector<PeerLinkSummary>{});
  }
  return out;
}

void RankTelemetry::take(const pai_telemetry_record& record, std::int64_t now_ns) {
  // A record stamped after `now` (written while this poll ran) belongs to the window's end;
  // clamping also keeps a writer's garbage times from overflowing the sums.
  const auto t =
      static_cast<std::int64_t>(std::min(record.time_ns, static_cast<std::uint64_t>(now_ns)));
  last_record_ns_ = std::max(last_record_ns_, t);
  if (record.step >= 0) step_ = record.step;
  switch (record.kind) {
    case PAI_TELEMETRY_STEP_BEGIN:
      step_begin_.emplace(record.step, t);
      return;
    case PAI_TELEMETRY_STEP_END:
      if (step_begin_ && step_begin_->first == record.step) {
        const std::int64_t took = std::max<std::int64_t>(0, t - step_begin_->second);
        step_ns_ = took > kInt64Max - step_ns_ ? kInt64Max : step_ns_ + took;
        ++steps_;
        step_begin_.reset();
      }
      return;
    case PAI_TELEMETRY_COLLECTIVE_ENTER:
    case PAI_TELEMETRY_COLLECTIVE_EXIT:
      break;
    default:
      return;
  }
  // Sequence numbers start at 1; anything else is not a collective of the protocol.
  if (record.group != 0 || record.collective_seq == 0 ||
      record.collective_seq > static_cast<std::uint64_t>(kInt64Max)) {
    return;
  }
  const auto seq = static_cast<std::int64_t>(record.collective_seq);
  if (record.kind == PAI_TELEMETRY_COLLECTIVE_ENTER) {
    entered_ = std::max(entered_, seq);
    if (open_.empty()) busy_since_ns_ = t;
    open_.try_emplace(seq, Open{t, std::min<int>(record.op, PAI_TELEMETRY_OP_OTHER)});
    if (open_.size() > kMaxOpen) {
      open_.erase(open_.begin());
      if (lost_ < kInt64Max) ++lost_;
    }
  } else if (open_.erase(seq) == 1 && open_.empty()) {
    count_comm(t);
  }
}

void RankTelemetry::count_comm(std::int64_t end_ns) {
  const std::int64_t stretch =
      std::max<std::int64_t>(0, end_ns - std::max(busy_since_ns_, window_start_ns_));
  // Stretches follow one another when the rank's times rise; a writer whose times go back
  // cannot make them add up past the window.
  comm_ns_ = std::min(comm_ns_ + stretch, std::max(comm_ns_, end_ns - window_start_ns_));
}

std::int64_t RankTelemetry::exited() const {
  return open_.empty() ? entered_ : open_.begin()->first - 1;
}

}  // namespace pai::launcher
