#include "launcher/logs/journal.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "launcher/logs/journal_json.h"
#include "libpai/utf8.h"

namespace pai::launcher::journal {

namespace {

using Json = nlohmann::json;

// `line` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD; nlohmann's
// parser refuses such bytes, and a rank's output can put any byte into a record.
std::string valid_utf8(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t n = utf8_sequence_length(line, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(line.substr(i, n));
      i += n;
    }
  }
  return out;
}

bool all_ascii(std::string_view line) {
  for (char c : line) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace

const char* name_of(const Event& event) {
  return std::visit([](const auto& e) -> const char* { return e.kName; }, event);
}

Header current_header() { return Header{.format = kFormat, .writer = "pai-launch " PAI_VERSION}; }

std::string format_time(std::int64_t unix_ms) {
  std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(unix_ms % 1000));
  return buf;
}

std::optional<std::int64_t> parse_time(std::string_view text) {
  // Exactly the form format_time writes: 2026-01-02T03:04:05.678Z.
  if (text.size() != 24 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != '.' || text[23] != 'Z') {
    return std::nullopt;
  }
  auto number = [&](std::size_t at, std::size_t len, int& out) {
    out = 0;
    for (std::size_t i = at; i < at + len; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      out = out * 10 + (text[i] - '0');
    }
    return true;
  };
  int year, month, day, hour, minute, second, ms;
  if (!number(0, 4, year) || !number(5, 2, month) || !number(8, 2, day) || !number(11, 2, hour) ||
      !number(14, 2, minute) || !number(17, 2, second) || !number(20, 3, ms)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t seconds = timegm(&tm);
  return static_cast<std::int64_t>(seconds) * 1000 + ms;
}

std::optional<Entry> parse_record(std::string_view line, ReadTally& tally) {
  const Json j = all_ascii(line) ? Json::parse(line, nullptr, false)
                                 : Json::parse(valid_utf8(line), nullptr, false);
  const auto time = j.is_object() ? j.find("time") : j.end();
  const auto event = j.is_object() ? j.find("event") : j.end();
  if (time == j.end() || event == j.end() || !time->is_string() || !event->is_string()) {
    ++tally.malformed;
    return std::nullopt;
  }
  const auto ms = parse_time(time->get_ref<const std::string&>());
  if (!ms) {
    ++tally.malformed;
    return std::nullopt;
  }
  std::optional<Event> read = read_event(event->get_ref<const std::string&>(), j, tally);
  if (!read) return std::nullopt;
  return Entry{*ms, std::move(*read)};
}

}  // namespace pai::launcher::journal
