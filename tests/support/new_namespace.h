// Running test code in namespaces of its own (root only): interfaces, routes and tc rules made
// in a network namespace, mounts made in a mount namespace, go with it.
#pragma once

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

namespace pai::testing {

/// Runs `body` (returning a std::string) in a forked child that first enters new namespaces
/// (`flags`: CLONE_NEWNET, CLONE_NEWNS; a new mount namespace's mounts are made private first,
/// so none reaches the host's), and returns what it returned, or "" when the namespaces could
/// not be made (not root) or the child died.
template <class Body>
std::string in_new_namespace(int flags, Body body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::unshare(flags) != 0) ::_exit(3);
    if ((flags & CLONE_NEWNS) != 0 &&
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      ::_exit(3);
    }
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

/// in_new_namespace with a network namespace.
template <class Body>
std::string in_new_netns(Body body) {
  return in_new_namespace(CLONE_NEWNET, body);
}

}  // namespace pai::testing
