#include "launcher/logs/event_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

#include "launcher/logs/journal.h"
#include "launcher/logs/output_writers.h"
#include "libpai/write_all.h"

namespace pai::launcher {

EventLog::EventLog(const std::string& path, int warn_fd)
    : path_(path), file_(std::make_shared<File>()) {
  file_->path = path;
  file_->warn_fd = warn_fd;
  file_->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (file_->fd < 0) {
    throw std::system_error(errno, std::system_category(), "cannot write " + path);
  }
  WriteStreamOptions options;
  options.write = [file = file_](std::string_view line) { return file->write(line); };
  options.close = [file = file_] { ::close(file->fd); };
  options.max_queued = kJournalQueueBytes;
  options.shared_bound = false;
  stream_ = log_writer().stream(std::move(options));
  // Not for a journal appended to (a launcher restarted into the same folder), nor for one
  // that is no regular file (/dev/full in tests).
  struct stat st {};
  if (::fstat(file_->fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
    record(journal::current_header());
  }
}

EventLog::~EventLog() {
  stream_->close();
  flush();
}

bool EventLog::record(const journal::Event& event) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  if (stream_->write(journal::format_record(now, event))) return true;
  file_->count_lost("its file system did not take records in time (" +
                    std::to_string(kJournalQueueBytes) + " bytes of them waiting)");
  return false;
}

void EventLog::flush() { log_writer().flush(); }

bool EventLog::File::write(std::string_view line) {
  ssize_t written;
  do {
    written = ::write(fd, line.data(), line.size());
  } while (written < 0 && errno == EINTR);
  if (written == static_cast<ssize_t>(line.size())) return true;
  int error = errno;
  if (written >= 0) {
    // A short write: the rest fails with the reason (ENOSPC, EFBIG), or goes through after all.
    const std::size_t done = static_cast<std::size_t>(written);
    if (write_all(fd, line.substr(done))) return true;
    error = errno;
    cut_torn_record(done);
  }
  count_lost(std::strerror(error));
  return false;
}

void EventLog::File::count_lost(const std::string& why) {
  if (lost.fetch_add(1) != 0) return;
  terminal_say(warn_fd, "pai-launch: warning: cannot write the journal " + path + ": " + why +
                            "; the job goes on, the journal is incomplete from here\n");
}

void EventLog::File::cut_torn_record(std::size_t written) {
  struct stat st {};
  const off_t end = ::lseek(fd, 0, SEEK_CUR);
  // Only when nobody appended after it: a record of another writer is never cut.
  if (end < 0 || ::fstat(fd, &st) != 0 || st.st_size != end) return;
  if (::ftruncate(fd, end - static_cast<off_t>(written)) != 0) return;
}

}  // namespace pai::launcher
