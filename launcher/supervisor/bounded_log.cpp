#include "launcher/supervisor/bounded_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "launcher/os/fd.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

int create(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

BoundedLog::BoundedLog(std::string path, std::uint64_t max_bytes)
    : path_(std::move(path)), max_bytes_(max_bytes) {}

void BoundedLog::open() {
  if (fd_ >= 0) return;
  fd_ = create(path_);
  // Out of descriptors too: the rank runs, its output on the terminal only.
  if (fd_ < 0) open_error_ = "cannot write " + path_ + ": " + std::strerror(errno);
}

BoundedLog::~BoundedLog() { close(); }

bool BoundedLog::write(std::string_view bytes) {
  if (fd_ < 0) return false;
  if (max_bytes_ > 0 && size_ > 0 && size_ + bytes.size() > max_bytes_ / 2 && !rotate()) {
    return false;
  }
  if (!write_all(fd_, bytes)) return false;
  size_ += bytes.size();
  output_ += bytes.size();
  return true;
}

bool BoundedLog::rotate() {
  const std::string older = path_ + ".1";
  if (::rename(path_.c_str(), older.c_str()) != 0) return false;
  const int fd = create(path_);
  if (fd < 0) {
    const int error = errno;
    ::rename(older.c_str(), path_.c_str());  // keep writing where we were, unbounded
    errno = error;
    return false;
  }
  ::close(fd_);
  fd_ = fd;
  dropped_.fetch_add(previous_, std::memory_order_relaxed);
  previous_ = output_;
  size_ = 0;
  output_ = 0;
  const std::string marker = "pai-launch: this log reached half of logs.maxBytes (" +
                             std::to_string(max_bytes_) + " bytes): the part before is in " +
                             base_name(older) + "; " + std::to_string(dropped_) +
                             " earlier bytes were dropped\n";
  if (!write_all(fd_, marker)) return false;
  size_ += marker.size();
  return true;
}

void BoundedLog::close() { close_fd(fd_); }

}  // namespace pai::launcher
