#include "compiler/plan/history_mtbf.h"

#include <time.h>

#include <algorithm>
#include <set>

#include "libpai/duration.h"

namespace pai {

std::optional<std::int64_t> parse_history_time(const std::string& text) {
  // Exactly YYYY-MM-DDTHH:MM:SSZ: 20 characters, digits where digits go.
  if (text.size() != 20) return std::nullopt;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool digit = c >= '0' && c <= '9';
    const char expected = i == 4 || i == 7 ? '-' : i == 10 ? 'T' : i == 13 || i == 16 ? ':' : 0;
    if (i == 19 ? c != 'Z' : expected != 0 ? c != expected : !digit) return std::nullopt;
  }
  auto number = [&](std::size_t at, std::size_t length) {
    int value = 0;
    for (std::size_t i = at; i < at + length; ++i) value = value * 10 + (text[i] - '0');
    return value;
  };
  tm t{};
  t.tm_year = number(0, 4) - 1900;
  t.tm_mon = number(5, 2) - 1;
  t.tm_mday = number(8, 2);
  t.tm_hour = number(11, 2);
  t.tm_min = number(14, 2);
  t.tm_sec = number(17, 2);
  if (t.tm_mon > 11 || t.tm_mday < 1 || t.tm_mday > 31 || t.tm_hour > 23 || t.tm_min > 59 ||
      t.tm_sec > 60) {
    return std::nullopt;
  }
  const tm asked = t;
  const time_t seconds = ::timegm(&t);
  // timegm normalises a 31st of a 30-day month into the next month: not a date.
  if (t.tm_mday != asked.tm_mday || t.tm_mon != asked.tm_mon) return std::nullopt;
  return static_cast<std::int64_t>(seconds);
}

MtbfHistory count_histories(const std::vector<std::vector<HistoryRecord>>& histories,
                            std::vector<std::string>* warnings) {
  MtbfHistory counts;
  for (const std::vector<HistoryRecord>& records : histories) {
    std::optional<std::int64_t> first;
    std::int64_t latest = 0;
    std::int64_t failures = 0;
    for (const HistoryRecord& r : records) {
      const auto at = parse_history_time(r.time);
      if (!at) {
        warnings->push_back("node " + r.node + ": a history record's time '" +
                            r.time.substr(0, 40) + "' is not a UTC time: record skipped");
        continue;
      }
      if (!first) {
        first = latest = *at;  // the history starts here: its own result counts nothing
        continue;
      }
      latest = std::max(latest, *at);
      if (!r.passed) ++failures;
    }
    if (!first || latest <= *first) continue;
    ++counts.nodes;
    counts.failures += failures;
    counts.node_seconds += std::min(latest - *first, kMaxDurationSeconds);
  }
  return counts;
}

std::optional<std::int64_t> history_node_mtbf(const MtbfHistory& counts) {
  if (counts.failures < kMinHistoryFailures || counts.node_seconds < kMinHistoryNodeSeconds) {
    return std::nullopt;
  }
  return std::min(counts.node_seconds / counts.failures, kMaxDurationSeconds);
}

std::optional<MtbfHistory> read_histories(const std::string& dir,
                                          const std::vector<std::string>& hosts,
                                          std::vector<std::string>* warnings) {
  std::vector<std::vector<HistoryRecord>> histories;
  std::set<std::string> seen;
  for (const std::string& host : hosts) {
    if (!seen.insert(host).second) continue;
    HistoryRead read = read_history(dir, host);
    warnings->insert(warnings->end(), read.warnings.begin(), read.warnings.end());
    if (!read.records.empty()) histories.push_back(std::move(read.records));
  }
  if (histories.empty()) return std::nullopt;
  return count_histories(histories, warnings);
}

}  // namespace pai
