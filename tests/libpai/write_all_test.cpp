// write_all: every byte through short writes, and a clean false on error.
#include "libpai/write_all.h"

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <string>
#include <thread>

namespace write_all_test {

TEST_CASE("write_all writes a buffer larger than a pipe through short writes") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  std::string bytes(1 << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  std::string received;
  std::thread reader([&] {
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) received.append(buf, n);
  });
  CHECK(pai::write_all(fds[1], bytes));
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  CHECK(received == bytes);
}

TEST_CASE("write_all reports a failed write with its errno") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  ::close(fds[0]);
  ::close(fds[1]);
  errno = 0;
  CHECK_FALSE(pai::write_all(fds[1], "x"));
  CHECK(errno == EBADF);
}

TEST_CASE("write_all reports a closed pipe instead of dying of SIGPIPE") {
  int fds[2];
  REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
  ::close(fds[0]);
  std::signal(SIGPIPE, SIG_IGN);
  errno = 0;
  CHECK_FALSE(pai::write_all(fds[1], "x"));
  CHECK(errno == EPIPE);
  ::close(fds[1]);
}

TEST_CASE("write_all of nothing writes nothing and succeeds") {
  CHECK(pai::write_all(-1, ""));
}

}  // namespace write_all_test
