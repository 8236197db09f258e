#include "launcher/coordinator/refusal_summary.h"

namespace pai::launcher::coordinator {

std::vector<Record> RefusalSummary::refused(const std::string& reason, Clock::time_point now) {
  ++pending_[reason];
  return due(now);
}

std::vector<Record> RefusalSummary::due(Clock::time_point now) {
  std::vector<Record> records;
  if (pending_.empty() || (last_report_ && now < *last_report_ + interval_)) return records;
  for (const auto& [reason, count] : pending_) {
    records.push_back(Record{"connections-refused", Json{{"count", count}, {"reason", reason}},
                             "refused " + std::to_string(count) + " connection" +
                                 (count == 1 ? "" : "s") + ": " + reason});
  }
  pending_.clear();
  last_report_ = now;
  return records;
}

std::optional<Clock::time_point> RefusalSummary::next_due() const {
  if (pending_.empty()) return std::nullopt;
  // Pending counts exist only after a report (the first refusal is reported at once).
  return last_report_ ? *last_report_ + interval_ : Clock::time_point{};
}

}  // namespace pai::launcher::coordinator
