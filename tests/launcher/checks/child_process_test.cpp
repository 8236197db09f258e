#include "launcher/checks/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>

namespace child_process_test {

using namespace pai::checks;
using namespace std::chrono_literals;

TEST_CASE("a check's command inherits no descriptor of the launcher - nor what it leaves running") {
  // As the coordinator's listening socket: open without close-on-exec.
  const int held = ::dup(2);
  REQUIRE(held > 2);
  const std::string fd = std::to_string(held);
  auto outcome = run_shell_command("if [ -e /proc/$$/fd/" + fd +
                                       " ]; then echo leaked; else echo clean; fi; "
                                       "sh -c 'if [ -e /proc/$$/fd/" +
                                       fd + " ]; then echo child leaked; fi' &",
                                   5s, 1024);
  ::close(held);
  CHECK(outcome.ending == ChildOutcome::Exited);
  CHECK(outcome.output == "clean\n");
}

TEST_CASE("a child's exit status and output come back") {
  auto outcome = run_in_child(
      [](int fd) {
        const char* text = "hello";
        return write(fd, text, std::strlen(text)) == 5 ? 7 : 1;
      },
      5s, 1024);
  CHECK(outcome.ending == ChildOutcome::Exited);
  CHECK(outcome.code == 7);
  CHECK(outcome.output == "hello");
  CHECK(outcome.output_bytes == 5);
}

TEST_CASE("a child killed by a signal is reported as such") {
  auto outcome = run_in_child(
      [](int) {
        raise(SIGSEGV);
        return 0;
      },
      5s, 1024);
  CHECK(outcome.ending == ChildOutcome::Signaled);
  CHECK(outcome.code == SIGSEGV);
  CHECK(describe_ending(outcome, 5s) == "killed by signal 11 (Segmentation fault)");
}

TEST_CASE("a hung child is killed at its timeout with its whole process group") {
  std::string marker = "/tmp/pai-child-test-" + std::to_string(getpid());
  auto outcome = run_shell_command("sleep 30 & echo $! > " + marker + "; wait", 300ms, 1024);
  CHECK(outcome.ending == ChildOutcome::TimedOut);
  CHECK(outcome.seconds < 5);
  CHECK(describe_ending(outcome, 300ms) == "timed out after 300ms (process group killed)");
  std::ifstream in(marker);
  int grandchild = 0;
  in >> grandchild;
  REQUIRE(grandchild > 0);
  // The grandchild was SIGKILLed with the group; it is a zombie of init at most, never running.
  usleep(100000);
  std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
  std::string pid, comm, state = "gone";
  if (stat) stat >> pid >> comm >> state;
  CHECK((state == "gone" || state == "Z"));
  std::remove(marker.c_str());
}

TEST_CASE("a child dies with a launcher killed by SIGKILL while it waits for it") {
  std::string marker = "/tmp/pai-child-orphan-" + std::to_string(getpid());
  std::remove(marker.c_str());
  // The "launcher": runs a child that records its pid and sleeps, and is killed meanwhile.
  const pid_t launcher = fork();
  REQUIRE(launcher >= 0);
  if (launcher == 0) {
    run_in_child(
        [&marker](int) {
          std::ofstream(marker) << getpid() << "\n";
          sleep(30);
          return 0;
        },
        60s, 1024);
    _exit(0);
  }
  int child = 0;
  for (int i = 0; i < 500 && child == 0; ++i) {
    usleep(10000);
    std::ifstream in(marker);
    in >> child;
  }
  REQUIRE(child > 0);
  kill(launcher, SIGKILL);
  int status = 0;
  waitpid(launcher, &status, 0);
  // The child is SIGKILLed as its parent dies: gone, or a zombie of init, within a moment.
  std::string state = "R";
  for (int i = 0; i < 200 && state != "gone" && state != "Z"; ++i) {
    usleep(10000);
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, comm;
    state = "gone";
    if (stat) stat >> pid >> comm >> state;
  }
  CHECK((state == "gone" || state == "Z"));
  if (state != "gone" && state != "Z") kill(child, SIGKILL);
  std::remove(marker.c_str());
}

TEST_CASE("a backgrounded descendant holding the pipe does not keep the parent waiting") {
  auto outcome = run_shell_command("sleep 30 & echo started", 10s, 1024);
  CHECK(outcome.ending == ChildOutcome::Exited);
  CHECK(outcome.code == 0);
  CHECK(outcome.output == "started\n");
  CHECK(outcome.seconds < 5);
}

TEST_CASE("only the tail of a flood is kept") {
  auto outcome =
      run_shell_command("head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END", 30s, 1000);
  CHECK(outcome.ending == ChildOutcome::Exited);
  CHECK(outcome.output_bytes == 5000005);
  CHECK(outcome.output.size() == 1000);
  CHECK(outcome.output.substr(outcome.output.size() - 5) == "\nEND\n");
  CHECK(output_tail(outcome).rfind("[... 4999005 bytes omitted ...]\n", 0) == 0);
}

TEST_CASE("a command that cannot run exits 127 with the shell's message") {
  auto outcome = run_shell_command("/nonexistent/pai-tool", 5s, 1024);
  CHECK(outcome.code == 127);
  CHECK(outcome.output.find("/nonexistent/pai-tool") != std::string::npos);
  CHECK(describe_ending(outcome, 5s) == "exited with status 127");
}

TEST_CASE("the child starts with an empty signal mask even when the parent blocks signals") {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  auto outcome = run_shell_command("kill -TERM $$; sleep 5", 10s, 1024);
  sigprocmask(SIG_SETMASK, &old, nullptr);
  CHECK(outcome.ending == ChildOutcome::Signaled);
  CHECK(outcome.code == SIGTERM);
}

TEST_CASE("every chunk of output reaches the observer as it arrives") {
  std::size_t seen = 0;
  std::string start;
  auto outcome = run_in_child(
      [](int fd) {
        std::string block(100000, 'z');
        for (int i = 0; i < 10; ++i)
          if (write(fd, block.data(), block.size()) != 100000) return 1;
        return 0;
      },
      10s, 100,
      [&](std::string_view chunk) {
        if (start.empty()) start = std::string(chunk.substr(0, 3));
        seen += chunk.size();
      });
  CHECK(outcome.code == 0);
  CHECK(seen == 1000000);
  CHECK(start == "zzz");
  CHECK(outcome.output.size() == 100);
}

}  // namespace child_process_test
