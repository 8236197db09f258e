#include "libpai/inherited_fds.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <unistd.h>

namespace pai {

namespace {

// The first number past every descriptor the process may hold.
unsigned int descriptor_top() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1U << 20;
  return limit.rlim_cur == RLIM_INFINITY ? (1U << 20) : static_cast<unsigned int>(limit.rlim_cur);
}

void close_between(unsigned int first, unsigned int last) {
  if (first > last) return;
  if (::close_range(first, last, 0) == 0) return;
  const unsigned int top = descriptor_top();
  for (unsigned int fd = first; fd <= last && fd < top; ++fd) ::close(static_cast<int>(fd));
}

}  // namespace

void close_on_exec_above_stderr() {
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  const unsigned int top = descriptor_top();
  for (unsigned int fd = 3; fd < top; ++fd) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
}

void close_above_stderr_but(int keep) {
  if (keep < 3) {
    close_between(3, ~0U);
    return;
  }
  close_between(3, static_cast<unsigned int>(keep) - 1);
  close_between(static_cast<unsigned int>(keep) + 1, ~0U);
}

}  // namespace pai
