#include "libpai/inherited_fds.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

namespace inherited_fds_test {

namespace {

// Runs `body` in a forked child; its exit code.
template <class Body>
int in_child(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

}  // namespace

TEST_CASE("a child closes every descriptor above stderr but the one it keeps") {
  const int a = ::dup(2), keep = ::dup(2), b = ::dup(2);
  REQUIRE((a > 2 && keep > a && b > keep));
  CHECK(in_child([&] {
          pai::close_above_stderr_but(keep);
          return (!is_open(a) && is_open(keep) && !is_open(b) && is_open(2)) ? 0 : 1;
        }) == 0);
  CHECK(in_child([&] {
          pai::close_above_stderr_but(-1);
          return (!is_open(a) && !is_open(keep) && !is_open(b) && is_open(2)) ? 0 : 1;
        }) == 0);
  CHECK(is_open(a));  // the parent's stay
  ::close(a);
  ::close(keep);
  ::close(b);
}

TEST_CASE("after close_on_exec_above_stderr every descriptor above stderr closes on exec") {
  const int a = ::dup(2);
  REQUIRE(a > 2);
  CHECK(in_child([&] {
          pai::close_on_exec_above_stderr();
          return (is_open(a) && (::fcntl(a, F_GETFD) & FD_CLOEXEC) != 0 &&
                  (::fcntl(2, F_GETFD) & FD_CLOEXEC) == 0)
                     ? 0
                     : 1;
        }) == 0);
  ::close(a);
}

}  // namespace inherited_fds_test
