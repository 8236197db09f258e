#include "launcher/logs/log_merge.h"

#include <algorithm>

#include "launcher/logs/log_relay.h"

namespace pai::launcher {

namespace {

// What a rank in a group costs beyond the text, for the pending cap.
constexpr std::size_t kRankCost = sizeof(int) + 16;

}  // namespace

std::string rank_label(std::vector<std::pair<int, std::string>> ranks, std::size_t max_runs) {
  std::sort(ranks.begin(), ranks.end());
  std::string label;
  std::size_t runs = 0;
  std::size_t listed = 0;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1].first == ranks[j].first + 1 &&
           ranks[j + 1].second == ranks[i].second) {
      ++j;
    }
    if (runs == max_runs) break;
    if (runs > 0) label += ',';
    label += ranks[i].second + ":" + std::to_string(ranks[i].first);
    if (j > i) label += "-" + std::to_string(ranks[j].first);
    ++runs;
    listed = j + 1;
    i = j + 1;
  }
  if (listed < ranks.size()) label += " and " + std::to_string(ranks.size() - listed) + " more ranks";
  return label;
}

void LogMerge::feed(int rank, const std::string& host, std::string_view bytes,
                    Clock::time_point now) {
  hosts_[rank] = host;
  while (!bytes.empty()) {
    std::string& partial = partials_[rank];
    const std::size_t room = kMaxRelayedLine - partial.size();
    const std::size_t nl = bytes.substr(0, room).find('\n');
    if (nl == std::string_view::npos && bytes.size() < room) {
      partial.append(bytes);
      return;
    }
    const std::size_t take = nl == std::string_view::npos ? room : nl;
    partial.append(bytes.substr(0, take));
    bytes.remove_prefix(nl == std::string_view::npos ? take : take + 1);
    std::string text = std::move(partial);
    partial.clear();
    line(rank, std::move(text), now);
  }
}

void LogMerge::line(int rank, std::string text, Clock::time_point now) {
  SameText& same = by_text_[text];
  std::size_t& depth = same.depth[rank];
  if (depth < same.groups.size()) {
    same.groups[depth]->ranks.push_back(rank);
  } else {
    pending_bytes_ += text.size();
    groups_.push_back(Group{std::move(text), now, {rank}});
    same.groups.push_back(&groups_.back());
  }
  ++depth;
  pending_bytes_ += kRankCost;
  while (pending_bytes_ > max_pending_bytes_ && !groups_.empty()) print_oldest();
}

void LogMerge::print_oldest() {
  Group& group = groups_.front();
  std::vector<std::pair<int, std::string>> ranks;
  ranks.reserve(group.ranks.size());
  for (int rank : group.ranks) ranks.emplace_back(rank, hosts_[rank]);
  std::string out = "[" + rank_label(std::move(ranks)) + "] ";
  out += group.text;
  out += '\n';
  write_(out);
  // The oldest group is its text's oldest too: every rank in it is one group shallower.
  auto same = by_text_.find(group.text);
  same->second.groups.pop_front();
  for (int rank : group.ranks) {
    auto depth = same->second.depth.find(rank);
    if (--depth->second == 0) same->second.depth.erase(depth);
  }
  if (same->second.groups.empty()) by_text_.erase(same);
  pending_bytes_ -= group.text.size() + kRankCost * group.ranks.size();
  groups_.pop_front();
}

void LogMerge::expire(Clock::time_point now) {
  if (!window_) return;
  while (!groups_.empty() && groups_.front().started + *window_ <= now) print_oldest();
}

std::optional<LogMerge::Clock::time_point> LogMerge::next_due() const {
  if (!window_ || groups_.empty()) return std::nullopt;
  return groups_.front().started + *window_;
}

void LogMerge::finish() {
  const Clock::time_point now = groups_.empty() ? Clock::time_point{} : groups_.back().started;
  for (auto& [rank, partial] : partials_) {
    if (!partial.empty()) line(rank, std::exchange(partial, std::string()), now);
  }
  partials_.clear();
  while (!groups_.empty()) print_oldest();
}

}  // namespace pai::launcher
