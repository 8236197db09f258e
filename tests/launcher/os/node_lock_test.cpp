#include "launcher/os/node_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "launcher/launcher_harness.h"

namespace node_lock_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

TEST_CASE("a second lock of a job's node is refused naming the holder - free again after") {
  TempDir dir;
  const std::string path = dir / "launcher.lock";
  {
    NodeLock first(path, "node node-1 of job 'j'");
    CHECK(slurp(path) == std::to_string(::getpid()) + "\n");
    CHECK_THROWS_WITH(NodeLock(path, "node node-1 of job 'j'"),
                      "another launcher (pid " + std::to_string(::getpid()) +
                          ") runs node node-1 of job 'j' on this machine; it holds " + path +
                          ": wait for it to end or stop it, or give this job another name");
  }
  CHECK_FALSE(std::filesystem::exists(path));  // removed with the lock
  NodeLock again(path, "node node-1 of job 'j'");
}

TEST_CASE("the lock of a launcher killed with SIGKILL is free at once") {
  TempDir dir;
  const std::string path = dir / "launcher.lock";
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    NodeLock held(path, "node node-1 of job 'j'");
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK_THROWS_AS(NodeLock(path, "node node-1 of job 'j'"), NodeLockError);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  NodeLock mine(path, "node node-1 of job 'j'");  // the file is still there: only unlocked
  CHECK(slurp(path) == std::to_string(::getpid()) + "\n");
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_CASE("a symlink in the lock's place is refused") {
  TempDir dir;
  std::filesystem::create_symlink(dir / "elsewhere", dir / "launcher.lock");
  CHECK_THROWS_WITH(
      NodeLock(dir / "launcher.lock", "node n of job 'j'"),
      Catch::StartsWith("cannot create the launcher lock " + (dir / "launcher.lock") + ": "));
  CHECK_FALSE(std::filesystem::exists(dir / "elsewhere"));
}

}  // namespace node_lock_test
