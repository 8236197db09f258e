#include "launcher/os/node_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

// The pid the holder wrote, for the message; "" when unreadable.
std::string holder_of(int fd) {
  std::array<char, 32> text{};
  const ssize_t n = ::pread(fd, text.data(), text.size() - 1, 0);
  if (n <= 0) return "";
  std::string pid(text.data(), static_cast<std::size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

NodeLock::NodeLock(std::string path, const std::string& what) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    throw NodeLockError("cannot create the launcher lock " + path_ + ": " + std::strerror(errno));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = holder_of(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error != EWOULDBLOCK) {
      throw NodeLockError("cannot lock " + path_ + ": " + std::strerror(error));
    }
    throw NodeLockError("another launcher" + (holder.empty() ? "" : " (pid " + holder + ")") +
                        " runs " + what + " on this machine; it holds " + path_ +
                        ": wait for it to end or stop it, or give this job another name");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) write_all(fd_, pid);  // for the message above; best effort
}

NodeLock::~NodeLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace pai::launcher
