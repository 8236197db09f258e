#include "launcher/commands/ctl_command.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "launcher/launcher_harness.h"

namespace ctl_command_test {

using pai::testing::TempDir;

namespace {

// Runs ctl_command with stderr captured; returns "<exit code>: <stderr>".
std::string ctl(std::vector<std::string> words) {
  TempDir dir;
  const int saved = dup(2);
  const int file = ::open((dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(file, 2);
  const int code = pai::launcher::ctl_command(words);
  dup2(saved, 2);
  ::close(saved);
  ::close(file);
  return std::to_string(code) + ": " + pai::testing::slurp(dir / "err");
}

}  // namespace

TEST_CASE("ctl refuses malformed requests and a missing socket with exit 2") {
  unsetenv("PAI_CONTROL_SOCKET");
  CHECK(ctl({"progress", "7"}) ==
        "2: pai-launch ctl: PAI_CONTROL_SOCKET is not set (run this in a process started by "
        "pai-launch)\n");
  CHECK(ctl({"progress", "seven"}) ==
        "2: pai-launch ctl: progress needs a step number >= 0, got 'seven'\n");
  CHECK(ctl({"notify", "two\nlines"}) == "2: pai-launch ctl: a request must be one line\n");
  CHECK(ctl({"notify", std::string(5000, 'x')}) ==
        "2: pai-launch ctl: request too long (limit 4096 bytes)\n");
}

TEST_CASE("ctl reports an unreachable launcher with exit 1") {
  setenv("PAI_CONTROL_SOCKET", "/nonexistent/worker-0.sock", 1);
  CHECK(ctl({"notify", "hello"}) ==
        "1: pai-launch ctl: cannot connect to control socket /nonexistent/worker-0.sock: No such "
        "file or directory\n");
  unsetenv("PAI_CONTROL_SOCKET");
}

}  // namespace ctl_command_test
