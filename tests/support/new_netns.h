// Running test code in a network namespace of its own (root only): interfaces, routes and tc
// rules made there go with it.
#pragma once

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

namespace pai::testing {

/// Runs `body` (returning a std::string) in a forked child that first enters a new network
/// namespace, and returns what it returned, or "" when the namespace could not be made (not
/// root) or the child died.
template <class Body>
std::string in_new_netns(Body body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::unshare(CLONE_NEWNET) != 0) ::_exit(3);
    const std::string out = body();
    (void)!::write(fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

}  // namespace pai::testing
