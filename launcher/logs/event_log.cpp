#include "launcher/logs/event_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

#include "launcher/logs/journal.h"
#include "libpai/write_all.h"

namespace pai::launcher {

EventLog::EventLog(const std::string& path, int warn_fd)
    : path_(path),
      fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640)),
      warn_fd_(warn_fd) {
  if (fd_ < 0) throw std::system_error(errno, std::system_category(), "cannot write " + path);
  // Not for a journal appended to (a launcher restarted into the same folder), nor for one
  // that is no regular file (/dev/full in tests).
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
    record(journal::current_header());
  }
}

EventLog::~EventLog() { ::close(fd_); }

bool EventLog::record(const journal::Event& event) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string line = journal::format_record(now, event);
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
