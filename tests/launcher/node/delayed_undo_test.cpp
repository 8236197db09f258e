#include "launcher/node/delayed_undo.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "support/temp_dir.h"

namespace delayed_undo_test {

using pai::launcher::DelayedUndo;
using pai::testing::TempDir;
using namespace std::chrono_literals;

namespace {

// Milliseconds until every holder of `fd`'s pipe closed its write end (end of file), or -1
// when some still held it after `limit`.
long long ms_until_closed(int fd, std::chrono::milliseconds limit) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + limit;
  char buffer[256];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return -1;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    if (::read(fd, buffer, sizeof buffer) == 0) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
          .count();
    }
  }
}

}  // namespace

// The undo is `sh -c 'sleep N && exec ...'` in a session of its own, and inherits the
// launcher's stdout and stderr. Cancelled, it must take its `sleep` along: a sleep left behind
// held the launcher's output open for the fault's seconds after the launcher ended, so a
// `pai-launch ... | tee` hung on for them.
TEST_CASE("a cancelled undo ends at once - its sleep too") {
  TempDir dir;
  const std::string mark = dir / "undone";
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const pid_t launcher = ::fork();
  REQUIRE(launcher >= 0);
  if (launcher == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    {
      DelayedUndo undo;
      undo.start({"/usr/bin/touch", mark}, 30);
      std::this_thread::sleep_for(200ms);  // the shell has started its sleep
      undo.cancel();
    }
    ::_exit(0);
  }
  ::close(out[1]);
  int status = 0;
  REQUIRE(::waitpid(launcher, &status, 0) == launcher);
  CHECK(WIFEXITED(status));
  const long long ms = ms_until_closed(out[0], 10s);
  ::close(out[0]);
  INFO("the launcher's output closed after " << ms << " ms (-1: not within 10 s)");
  CHECK(ms >= 0);
}

}  // namespace delayed_undo_test
