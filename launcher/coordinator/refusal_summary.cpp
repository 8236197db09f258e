#include "launcher/coordinator/refusal_summary.h"

#include <algorithm>

namespace pai::launcher::coordinator {

namespace {

std::string connections(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " connection" : " connections");
}

}  // namespace

std::vector<Record> RefusalSummary::refused(const std::string& address, const std::string& reason,
                                            Clock::time_point now, bool shown) {
  auto key = std::make_pair(
      address, reason.size() > kMaxReason ? reason.substr(0, kMaxReason) + "..." : reason);
  auto it = pending_.find(key);
  if (it == pending_.end() && pending_.size() < kMaxTracked) {
    it = pending_.emplace(std::move(key), Count{0, pending_.size(), false}).first;
  }
  if (it != pending_.end()) {
    ++it->second.count;
    it->second.shown = it->second.shown || shown;
  } else {
    ++untracked_count_;
    untracked_shown_ = untracked_shown_ || shown;
  }
  return due(now);
}

std::vector<Record> RefusalSummary::due(Clock::time_point now) {
  std::vector<Record> records;
  if (!next_due() || now < *next_due()) return records;

  using Entry = std::map<std::pair<std::string, std::string>, Count>::const_iterator;
  std::vector<Entry> entries;
  entries.reserve(pending_.size());
  for (auto it = pending_.begin(); it != pending_.end(); ++it) entries.push_back(it);
  auto listed = std::min(entries.size(), kMaxListed);
  std::partial_sort(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(listed),
                    entries.end(), [](Entry a, Entry b) {
                      if (a->second.count != b->second.count) {
                        return a->second.count > b->second.count;
                      }
                      return a->second.first_seen < b->second.first_seen;
                    });

  for (std::size_t i = 0; i < listed; ++i) {
    const auto& [address, reason] = entries[i]->first;
    const Count& count = entries[i]->second;
    const std::string from = address.empty() ? "" : " from " + address;
    records.push_back(record(count.count, reason, address,
                             count.shown
                                 ? "refused " + connections(count.count) + from + ": " + reason
                                 : std::string()));
  }
  std::size_t rest = untracked_count_;
  bool rest_shown = untracked_shown_;
  for (std::size_t i = listed; i < entries.size(); ++i) {
    rest += entries[i]->second.count;
    rest_shown = rest_shown || entries[i]->second.shown;
  }
  if (rest > 0) {
    records.push_back(record(rest, std::nullopt, "",
                             rest_shown ? "refused " + std::to_string(rest) + " more connection" +
                                              (rest == 1 ? "" : "s") +
                                              " from other addresses or for other reasons"
                                        : std::string()));
  }

  pending_.clear();
  untracked_count_ = 0;
  untracked_shown_ = false;
  last_report_ = now;
  return records;
}

std::optional<Clock::time_point> RefusalSummary::next_due() const {
  if (pending_.empty() && untracked_count_ == 0) return std::nullopt;
  // Pending counts exist only after a report (the first refusal is reported at once).
  return last_report_ ? *last_report_ + interval_ : Clock::time_point{};
}

Record RefusalSummary::record(std::size_t count, std::optional<std::string> reason,
                              const std::string& address, std::string line) const {
  const auto n = static_cast<std::int64_t>(count);
  if (kind_ == Kind::PortProbes) {
    return Record{journal::PortProbes{.count = n, .reason = std::move(reason), .address = address},
                  std::move(line)};
  }
  return Record{
      journal::ConnectionsRefused{.count = n, .reason = std::move(reason), .address = address},
      std::move(line)};
}

}  // namespace pai::launcher::coordinator
