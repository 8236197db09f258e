#include "launcher/os/proc_stat.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "launcher/launcher_harness.h"

namespace proc_stat_test {

using namespace pai::launcher;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

// A fake /proc/PID/stat whose COMM holds spaces and parentheses, as a process may name itself.
void fake_stat(const TempDir& proc, int pid, char state, int ppid, int pgrp) {
  std::filesystem::create_directories(proc / std::to_string(pid));
  spit(proc / (std::to_string(pid) + "/stat"),
       std::to_string(pid) + " (a) b (c) " + state + " " + std::to_string(ppid) + " " +
           std::to_string(pgrp) + " 1 0 -1 4194560 0 0\n");
}

}  // namespace

TEST_CASE("this process's stat gives its parent and group - a missing one gives nothing") {
  const auto self = read_proc_stat(::getpid());
  REQUIRE(self);
  CHECK(self->ppid == ::getppid());
  CHECK(self->pgrp == ::getpgrp());
  CHECK(self->state == 'R');

  TempDir proc;
  fake_stat(proc, 42, 'Z', 7, 40);
  const auto fake = read_proc_stat(42, proc.path());
  REQUIRE(fake);
  CHECK(fake->state == 'Z');
  CHECK(fake->ppid == 7);
  CHECK(fake->pgrp == 40);
  CHECK_FALSE(read_proc_stat(43, proc.path()));
  std::filesystem::create_directories(proc / "44");
  spit(proc / "44/stat", "44 (truncated");
  CHECK_FALSE(read_proc_stat(44, proc.path()));
}

TEST_CASE("the nearest wanted ancestor is found - none, a gap or a loop gives 0") {
  CHECK(nearest_ancestor(::getpid(), [](int pid) { return pid == ::getppid(); }) == ::getppid());
  CHECK(nearest_ancestor(::getpid(), [](int pid) { return pid == ::getpid(); }) == ::getpid());
  CHECK(nearest_ancestor(::getpid(), [](int) { return false; }) == 0);

  TempDir proc;
  fake_stat(proc, 30, 'S', 20, 30);  // 30 -> 20 -> 10
  fake_stat(proc, 20, 'S', 10, 20);
  fake_stat(proc, 10, 'S', 1, 10);
  const auto is = [](int wanted) { return [wanted](int pid) { return pid == wanted; }; };
  CHECK(nearest_ancestor(30, is(10), 64, proc.path()) == 10);
  CHECK(nearest_ancestor(30, is(10), 1, proc.path()) == 0);  // two steps up, one allowed
  CHECK(nearest_ancestor(30, is(99), 64, proc.path()) == 0);
  fake_stat(proc, 50, 'S', 60, 50);  // its parent is gone
  CHECK(nearest_ancestor(50, is(10), 64, proc.path()) == 0);
  fake_stat(proc, 70, 'S', 71, 70);  // a loop, which a real /proc never shows
  fake_stat(proc, 71, 'S', 70, 70);
  CHECK(nearest_ancestor(70, is(10), 64, proc.path()) == 0);
}

}  // namespace proc_stat_test
