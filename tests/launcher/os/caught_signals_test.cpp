#include "launcher/os/caught_signals.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "launcher/launcher_harness.h"
#include "launcher/os/process.h"

namespace caught_signals_test {

using namespace pai::launcher;
using pai::testing::spit;
using pai::testing::TempDir;

TEST_CASE("SigCgt is read as a mask - a missing process has none") {
  TempDir proc;
  std::filesystem::create_directories(proc / "42");
  spit(proc / "42/status", "Name:\tpython3\nSigBlk:\t0000000000000000\nSigIgn:\t0000000001001000\n"
                           "SigCgt:\t0000000180000202\n");
  const auto mask = caught_signals(42, proc.path());
  REQUIRE(mask);
  CHECK((*mask & (1u << (SIGUSR1 - 1))) != 0);
  CHECK((*mask & (1u << (SIGINT - 1))) != 0);
  CHECK((*mask & (1u << (SIGQUIT - 1))) == 0);
  CHECK_FALSE(caught_signals(43, proc.path()));
}

TEST_CASE("group members are read from stat - commands with spaces and parentheses too") {
  TempDir proc;
  for (const char* pid : {"7", "8", "9", "10"}) std::filesystem::create_directories(proc / pid);
  spit(proc / "7/stat", "7 (python3) S 1 7 7 0 -1\n");
  spit(proc / "8/stat", "8 (a (b) c) S 7 7 7 0 -1\n");
  spit(proc / "9/stat", "9 (zombie) Z 7 7 7 0 -1\n");
  spit(proc / "10/stat", "10 (other) S 1 10 10 0 -1\n");
  std::vector<int> members = process_group_members(7, proc.path());
  std::sort(members.begin(), members.end());
  CHECK(members == std::vector<int>{7, 8});
}

TEST_CASE("only the group's processes that catch the signal get it - the others live on") {
  TempDir dir;
  // The shell traps SIGUSR1; its `sleep` child in the same group would die of it.
  SpawnRequest request;
  request.argv = {"/bin/sh", "-c",
                  "trap 'echo caught >> " + dir.path() +
                      "/caught' USR1; sleep 60 & echo $! > " + dir.path() +
                      "/sleeper; while :; do wait; done"};
  const pid_t shell = spawn_process(request);
  REQUIRE(pai::testing::wait_for_file(dir / "sleeper"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int sleeper = std::stoi(pai::testing::slurp(dir / "sleeper"));
  CHECK(signal_catchers(shell, SIGUSR1) == 1);
  REQUIRE(pai::testing::wait_for_file(dir / "caught"));
  CHECK(::kill(sleeper, 0) == 0);
  CHECK(::waitpid(shell, nullptr, WNOHANG) == 0);
  ::kill(-shell, SIGKILL);
  ::waitpid(shell, nullptr, 0);
}

}  // namespace caught_signals_test
