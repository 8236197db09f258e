#include "launcher/os/fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>

namespace fd_test {

using namespace pai::launcher;

TEST_CASE("close_fd closes once and marks the descriptor closed") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  int read_end = fds[0];
  close_fd(read_end);
  CHECK(read_end == -1);
  // The descriptor is really closed: fcntl on it fails with EBADF.
  CHECK(::fcntl(fds[0], F_GETFD) == -1);
  CHECK(errno == EBADF);
  close_fd(read_end);  // a second call does nothing
  CHECK(read_end == -1);
  ::close(fds[1]);
}

TEST_CASE("set_nonblocking makes an empty pipe's read return EAGAIN") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  set_nonblocking(fds[0]);
  CHECK((::fcntl(fds[0], F_GETFL) & O_NONBLOCK) != 0);
  CHECK((::fcntl(fds[0], F_GETFD) & FD_CLOEXEC) != 0);  // other flags are kept
  char c;
  CHECK(::read(fds[0], &c, 1) == -1);
  CHECK(errno == EAGAIN);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace fd_test
