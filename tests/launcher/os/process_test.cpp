#include "launcher/os/process.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "launcher/launcher_harness.h"

namespace process_test {

using namespace pai::launcher;
using pai::testing::slurp;
using pai::testing::TempDir;

namespace {

int wait_for(int pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("a spawned process gets its env - working dir - own group - fds and clean signals") {
  TempDir dir;
  int out = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigprocmask(SIG_BLOCK, &blocked, nullptr);
  SpawnRequest request;
  request.argv = {"sh", "-c",
                  "echo \"$GREETING $(pwd) $(ps -o pgid= -p $$ | tr -d ' ') $$\"; "
                  "grep SigBlk /proc/self/status; read x || echo stdin-empty"};
  request.env = {{"PATH", "/usr/bin:/bin"}, {"GREETING", "old"}, {"GREETING", "hello"}};
  request.working_dir = dir.path();
  request.stdout_fd = out;
  request.stderr_fd = out;
  const int pid = spawn_process(request);
  sigprocmask(SIG_UNBLOCK, &blocked, nullptr);
  ::close(out);
  CHECK(wait_for(pid) == 0);
  CHECK(slurp(dir / "out") == "hello " + dir.path() + " " + std::to_string(pid) + " " +
                                      std::to_string(pid) +
                                      "\nSigBlk:\t0000000000000000\nstdin-empty\n");
}

TEST_CASE("a second process joins the first one's group") {
  SpawnRequest request;
  request.argv = {"/bin/sleep", "5"};
  const int leader = spawn_process(request);
  request.process_group = leader;
  const int member = spawn_process(request);
  CHECK(getpgid(member) == leader);
  kill(-leader, SIGKILL);
  CHECK(wait_for(leader) == 128 + SIGKILL);
  CHECK(wait_for(member) == 128 + SIGKILL);
}

// The pid of a `sleep 5` spawned (detached or not) by a process that then exits at once.
int spawned_by_a_process_that_exits(bool detach) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t parent = fork();
  if (parent == 0) {
    SpawnRequest request;
    request.argv = {"/bin/sleep", "5"};
    request.detach = detach;
    const int pid = spawn_process(request);
    [[maybe_unused]] const auto n = ::write(fds[1], &pid, sizeof pid);
    _exit(0);
  }
  ::close(fds[1]);
  int pid = 0;
  REQUIRE(::read(fds[0], &pid, sizeof pid) == sizeof pid);
  ::close(fds[0]);
  CHECK(wait_for(parent) == 0);
  return pid;
}

// Whether `pid` runs (a zombie counts as gone).
bool running(int pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

TEST_CASE("a detached process leads a session of its own and outlives who started it") {
  const int detached = spawned_by_a_process_that_exits(true);
  const int attached = spawned_by_a_process_that_exits(false);
  CHECK(::getsid(detached) == detached);
  // The attached one is killed when its launcher dies (PR_SET_PDEATHSIG); the detached is not.
  for (int i = 0; i < 100 && running(attached); ++i) ::usleep(20000);
  CHECK_FALSE(running(attached));
  CHECK(running(detached));
  ::kill(detached, SIGKILL);
}

TEST_CASE("programs that cannot run are SpawnErrors with the shell's codes") {
  TempDir dir;
  SpawnRequest request;
  request.argv = {"no-such-program-anywhere"};
  request.env = {{"PATH", dir.path()}};
  try {
    spawn_process(request);
    FAIL("spawned");
  } catch (const SpawnError& e) {
    CHECK(e.exit_code() == 127);
    CHECK(std::string(e.what()) == "cannot run 'no-such-program-anywhere': command not found");
  }
  request.argv = {dir.path()};
  try {
    spawn_process(request);
    FAIL("spawned");
  } catch (const SpawnError& e) {
    CHECK(e.exit_code() == 126);
    CHECK(std::string(e.what()) ==
          "cannot run '" + dir.path() + "': permission denied (not an executable file)");
  }
  request.argv = {"/bin/true"};
  request.working_dir = dir / "missing";
  try {
    spawn_process(request);
    FAIL("spawned");
  } catch (const SpawnError& e) {
    CHECK(e.exit_code() == 127);
    CHECK(std::string(e.what()) ==
          "cannot run '/bin/true': working directory '" + dir.path() + "/missing' does not exist");
  }
}

TEST_CASE("search_path walks PATH in order and skips non-executables") {
  TempDir dir;
  pai::testing::spit(dir / "tool", "");
  CHECK(search_path("tool", dir.path()) == "");
  chmod((dir / "tool").c_str(), 0755);
  CHECK(search_path("tool", "/nonexistent:" + dir.path()) == dir / "tool");
  CHECK(search_path("sh", "/bin:/usr/bin") == "/bin/sh");
  CHECK(search_path("./x", "") == "./x");
}

TEST_CASE("a spawned process holds no descriptor of the launcher but 0, 1 and 2") {
  TempDir dir;
  // What Boost.Asio and libraries leave behind: descriptors without close-on-exec.
  int leaked[2];
  REQUIRE(::pipe(leaked) == 0);
  const int listening = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listening >= 0);
  int out = ::open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  SpawnRequest request;
  request.argv = {"/bin/sh", "-c", "ls /proc/$$/fd"};
  request.stdout_fd = out;
  const int pid = spawn_process(request);
  ::close(out);
  CHECK(wait_for(pid) == 0);
  CHECK(slurp(dir / "out") == "0\n1\n2\n");
  ::close(leaked[0]);
  ::close(leaked[1]);
  ::close(listening);
}

TEST_CASE("a failed exec is still reported after the descriptors are closed") {
  TempDir dir;
  const std::string script = dir / "not-a-program";
  pai::testing::spit(script, "\x7f" "ELF garbage");
  ::chmod(script.c_str(), 0755);
  SpawnRequest request;
  request.argv = {script};
  CHECK_THROWS_AS(spawn_process(request), SpawnError);
}

}  // namespace process_test
