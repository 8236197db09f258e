#include "launcher/os/fd.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pai::launcher {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void throw_fd_error(const std::string& what) {
  const int error = errno;
  const std::string text = what + ": " + std::strerror(error);
  if (error == EMFILE || error == ENFILE) {
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    throw DescriptorsExhausted(text + " (open files limit " + std::to_string(limit.rlim_cur) +
                               "; raise `ulimit -n` or run fewer processes per node)");
  }
  throw std::runtime_error(text);
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

namespace {

// The limits before raise_descriptor_limit(); rlim_cur == 0 until then.
rlimit original_limit{};

}  // namespace

unsigned long raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (original_limit.rlim_cur == 0) original_limit = limit;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return static_cast<unsigned long>(limit.rlim_cur);
}

void restore_descriptor_limit() {
  if (original_limit.rlim_cur != 0) ::setrlimit(RLIMIT_NOFILE, &original_limit);
}

}  // namespace pai::launcher
