#include "launcher/logs/event_log.h"

#include "libpai/write_all.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <system_error>


namespace pai::launcher {

namespace {

std::string utc_time(std::int64_t unix_ms) {
  std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(unix_ms % 1000));
  return buf;
}

}  // namespace

std::string format_event(std::int64_t unix_ms, std::string_view event, const EventFields& fields) {
  // ordered_json keeps time and event first, then the fields as given.
  nlohmann::ordered_json line;
  line["time"] = utc_time(unix_ms);
  line["event"] = std::string(event);
  for (const auto& [name, value] : fields) {
    std::visit([&, key = name](const auto& v) { line[key] = v; }, value);
  }
  // Output of processes is arbitrary bytes; invalid UTF-8 is replaced rather than thrown on.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

EventLog::EventLog(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {
  if (fd_ < 0) throw std::system_error(errno, std::system_category(), "cannot write " + path);
}

EventLog::~EventLog() { ::close(fd_); }

void EventLog::record(std::string_view event, const EventFields& fields) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  if (!write_all(fd_, format_event(now, event, fields))) {
    throw std::system_error(errno, std::system_category(), "cannot write " + path_);
  }
}

}  // namespace pai::launcher
