#include "launcher/logs/event_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <system_error>

#include "libpai/write_all.h"

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

EventLog::EventLog(const std::string& path, int warn_fd)
    : path_(path),
      fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)),
      warn_fd_(warn_fd) {
  if (fd_ < 0) throw std::system_error(errno, std::system_category(), "cannot write " + path);
}

EventLog::~EventLog() { ::close(fd_); }

bool EventLog::record(std::string_view event, const EventFields& fields) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string line = format_event(now, event, fields);
  ssize_t written;
  do {
    written = ::write(fd_, line.data(), line.size());
  } while (written < 0 && errno == EINTR);
  if (written == static_cast<ssize_t>(line.size())) return true;
  int error = errno;
  if (written >= 0) {
    // A short write: the rest fails with the reason (ENOSPC, EFBIG), or goes through after all.
    const std::size_t done = static_cast<std::size_t>(written);
    if (write_all(fd_, std::string_view(line).substr(done))) return true;
    error = errno;
    cut_torn_record(done);
  }
  if (lost_++ == 0) {
    write_all(warn_fd_, "pai-launch: warning: cannot write the journal " + path_ + ": " +
                            std::strerror(error) +
                            "; the job goes on, the journal is incomplete from here\n");
  }
  return false;
}

void EventLog::cut_torn_record(std::size_t written) {
  struct stat st {};
  const off_t end = ::lseek(fd_, 0, SEEK_CUR);
  // Only when nobody appended after it: a record of another writer is never cut.
  if (end < 0 || ::fstat(fd_, &st) != 0 || st.st_size != end) return;
  if (::ftruncate(fd_, end - static_cast<off_t>(written)) != 0) return;
}

}  // namespace pai::launcher
