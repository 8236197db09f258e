#include "launcher/report/journal_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <system_error>

#include "libpai/utf8.h"

namespace pai::launcher::report {

namespace {

// Ordered: a record's fields keep the order the journal wrote them in.
using Json = nlohmann::ordered_json;

const EventValue* find_field(const EventFields& fields, std::string_view name) {
  for (const auto& [key, value] : fields) {
    if (key == name) return &value;
  }
  return nullptr;
}

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

// `v` as a field's value; a string is moved out of `v`.
EventValue to_value(Json& v) {
  if (v.is_string()) return std::move(v.get_ref<std::string&>());
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_null()) return std::string();
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

RecordFields members_of(Json j) {
  RecordFields out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it)
    out.fields.emplace_back(it.key(), to_value(it.value()));
  return out;
}

Json parse_embedded(const std::optional<std::string>& text) {
  if (!text || text->empty()) return Json();
  Json j = Json::parse(*text, nullptr, false);
  return j.is_discarded() ? Json() : j;
}

}  // namespace

std::optional<std::string> RecordFields::text(std::string_view name) const {
  const EventValue* v = find_field(fields, name);
  if (v == nullptr) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(v)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(v)) return std::string(*b ? "true" : "false");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", std::get<double>(*v));
  return std::string(buf);
}

std::optional<std::int64_t> RecordFields::integer(std::string_view name) const {
  const EventValue* v = find_field(fields, name);
  if (v == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(v)) return *i;
  if (const auto* d = std::get_if<double>(v)) {
    if (std::isfinite(*d) && std::trunc(*d) == *d && std::fabs(*d) < 9.0e15) {
      return static_cast<std::int64_t>(*d);
    }
  }
  return std::nullopt;
}

std::optional<bool> RecordFields::flag(std::string_view name) const {
  const EventValue* v = find_field(fields, name);
  if (v == nullptr) return std::nullopt;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  return std::nullopt;
}

RecordFields RecordFields::object(std::string_view name) const {
  return members_of(parse_embedded(text(name)));
}

std::vector<RecordFields> RecordFields::objects(std::string_view name) const {
  std::vector<RecordFields> out;
  const Json j = parse_embedded(text(name));
  if (!j.is_array()) return out;
  for (const Json& member : j) {
    if (member.is_object()) out.push_back(members_of(member));
  }
  return out;
}

std::vector<std::string> RecordFields::strings(std::string_view name) const {
  std::vector<std::string> out;
  const Json j = parse_embedded(text(name));
  if (!j.is_array()) return out;
  for (const Json& member : j) {
    if (member.is_string()) out.push_back(member.get<std::string>());
  }
  return out;
}

std::string exit_status_text(const RecordFields& status, bool* failed) {
  const std::int64_t signal = status.integer("signal").value_or(0);
  const std::int64_t code = status.integer("code").value_or(0);
  if (failed != nullptr) *failed = signal != 0 || code != 0;
  return signal > 0 ? "signal " + std::to_string(signal) : "exit code " + std::to_string(code);
}

std::optional<std::int64_t> parse_journal_time(std::string_view text) {
  // Exactly the form format_event writes: 2026-01-02T03:04:05.678Z.
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

bool parse_journal_line(std::string_view line, JournalRecord& out) {
  Json j = all_ascii(line) ? Json::parse(line, nullptr, false)
                           : Json::parse(valid_utf8(line), nullptr, false);
  if (!j.is_object()) return false;
  const auto time = j.find("time");
  const auto event = j.find("event");
  if (time == j.end() || event == j.end() || !time->is_string() || !event->is_string()) {
    return false;
  }
  const auto ms = parse_journal_time(time->get_ref<const std::string&>());
  if (!ms) return false;
  out.unix_ms = *ms;
  out.event = event->get<std::string>();
  out.fields.clear();
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "time" || it.key() == "event") continue;
    out.fields.emplace_back(it.key(), to_value(it.value()));
  }
  return true;
}

JournalStats read_journal(const std::string& path,
                          const std::function<void(const JournalRecord&)>& on_record) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::system_category(), "cannot read " + path);
  JournalStats stats;
  JournalRecord record;
  std::string line;
  bool skipping = false;  // inside a line past kMaxRecordBytes
  auto finish_line = [&] {
    if (skipping) {
      ++stats.oversized;
    } else if (parse_journal_line(line, record)) {
      ++stats.records;
      on_record(record);
    } else {
      ++stats.malformed;
    }
    line.clear();
    skipping = false;
  };
  std::string buffer(256 * 1024, '\0');
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw std::system_error(error, std::system_category(), "cannot read " + path);
    }
    if (n == 0) break;
    stats.bytes += n;
    std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
    while (!chunk.empty()) {
      const std::size_t nl = chunk.find('\n');
      const std::string_view part = chunk.substr(0, nl);
      if (!skipping) {
        if (line.size() + part.size() > kMaxRecordBytes) {
          skipping = true;
          line.clear();
        } else {
          line.append(part);
        }
      }
      if (nl == std::string_view::npos) break;
      finish_line();
      chunk.remove_prefix(nl + 1);
    }
  }
  ::close(fd);
  if (skipping || !line.empty()) {
    // A record being written, or cut off by a kill: whatever it says is not whole.
    stats.partial_last_line = true;
    if (skipping) ++stats.oversized;
  }
  return stats;
}

}  // namespace pai::launcher::report
