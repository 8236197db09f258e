// Liveness never waits on output: a 2-node job whose terminal stops reading (Ctrl-S on a real
// pty, a pipe whose reader stopped) or whose log file system freezes (fsfreeze) goes on and
// finishes; what could not be shown or logged in time is counted and marked. Before the output
// writers (launcher/logs/output_writers.h), each of these lost a node within a second.
#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

#include "launcher/logs/output_writers.h"
#include "launcher/multi_node/cluster_harness.h"

namespace stalled_output_test {

using namespace pai::testing;
using Clock = std::chrono::steady_clock;

namespace {

// Each rank writes `bytes` of 100-byte lines at once, then stays 2 s (two node-loss timeouts
// at the harness's 200 ms heartbeat), and then until the file `go_on` exists when one is
// named, and ends.
pai::Plan noisy_plan(const std::string& name, int subnet, long bytes, const std::string& ready,
                     const std::string& go_on = "") {
  const std::string line(99, 'x');
  const std::string wait =
      go_on.empty() ? "" : "; while [ ! -e " + go_on + " ]; do sleep 0.05; done";
  return cluster_plan(name, subnet, 2, 0,
                      "touch " + ready +
                          "-$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX; sleep 0.5; yes " + line +
                          " | head -c " + std::to_string(bytes) + "; sleep 2" + wait +
                          "; echo rank $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX done");
}

// Collects what arrives on `fd` in a thread of its own, while reading is on.
class Reader {
 public:
  explicit Reader(int fd) : fd_(fd), thread_([this] { run(); }) {}
  ~Reader() {
    stop_ = true;
    thread_.join();
  }
  void set_reading(bool on) { reading_ = on; }
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }
  // Waits until every writer is gone and what they wrote was read (end of file on a pipe, EIO
  // on a pty's master), at most `timeout`: the last lines may still be in the pipe when the
  // launchers have exited.
  bool wait_for_end(std::chrono::seconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (!ended_ && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return ended_;
  }

 private:
  void run() {
    char buf[65536];
    while (!stop_) {
      if (!reading_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const ssize_t got = ::read(fd_, buf, sizeof buf);
      if (got == 0 || (got < 0 && errno == EIO)) ended_ = true;
      if (got <= 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      std::lock_guard lock(mutex_);
      text_.append(buf, static_cast<std::size_t>(got));
    }
  }
  int fd_;
  std::atomic<bool> stop_ = false;
  std::atomic<bool> reading_ = true;
  std::atomic<bool> ended_ = false;
  std::mutex mutex_;
  std::string text_;
  std::thread thread_;
};

// Waits until the coordinator's journal says the job succeeded; false after `timeout_s`.
bool wait_for_success(const Cluster& cluster, double timeout_s) {
  return eventually(
      [&] {
        return count_lines_with(slurp(cluster.dir() / "logs/coordinator/events.jsonl"),
                                "\"event\":\"job-succeeded\"") == 1;
      },
      timeout_s);
}

// The job ran once, nobody lost: no node disconnected, no restart.
void expect_one_clean_attempt(const Cluster& cluster) {
  const std::string journal = slurp(cluster.dir() / "logs/coordinator/events.jsonl");
  INFO(journal);
  CHECK(count_lines_with(journal, "\"event\":\"disconnected\"") == 0);
  CHECK(count_lines_with(journal, "\"event\":\"restart\"") == 0);
  CHECK(count_lines_with(journal, "\"event\":\"job-succeeded\"") == 1);
}

}  // namespace

TEST_CASE("a terminal under Ctrl-S stops no heartbeat - the job finishes, unshown output marked") {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  REQUIRE(master >= 0);
  REQUIRE(::grantpt(master) == 0);
  REQUIRE(::unlockpt(master) == 0);
  const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  REQUIRE(slave >= 0);
  termios tio{};
  REQUIRE(::tcgetattr(slave, &tio) == 0);
  tio.c_iflag |= IXON;  // ^S stops output, ^Q starts it: a terminal's flow control
  tio.c_lflag &= ~static_cast<tcflag_t>(ECHO | ICANON);
  REQUIRE(::tcsetattr(slave, TCSANOW, &tio) == 0);
  Reader screen(master);                     // a terminal emulator, reading all along
  REQUIRE(::write(master, "\x13", 1) == 1);  // Ctrl-S before the job starts

  TempDir marks;
  Cluster cluster(noisy_plan("stall-pty", 160, 2'000'000, marks / "ready"));
  cluster.set_terminal(slave);
  cluster.start_all();
  const bool succeeded = wait_for_success(cluster, 30);
  REQUIRE(::write(master, "\x11", 1) == 1);  // Ctrl-Q: the launchers can say the rest
  const auto codes = cluster.wait_all(60);
  ::close(slave);
  CHECK(screen.wait_for_end(std::chrono::seconds(10)));
  const std::string shown = screen.text();
  INFO(shown.substr(shown.size() > 4000 ? shown.size() - 4000 : 0));
  CHECK(succeeded);
  CHECK(codes == std::map<std::string, int>{{"node-1", 0}, {"node-2", 0}});
  expect_one_clean_attempt(cluster);
  CHECK(shown.find("bytes of output were not shown: this terminal (or pipe) did not read them "
                   "in time; the rank logs keep them") != std::string::npos);
  CHECK(shown.find("rank 1 done") != std::string::npos);
  // The logs have every byte the terminal did not show.
  const auto log_size =
      std::filesystem::file_size(cluster.dir() / "logs/worker-1/rank-1.attempt-0.log");
  CHECK(log_size == 2'000'000 + std::string("rank 1 done\n").size());
  ::close(master);
  CHECK(leftover_processes("stall-pty").empty());
}

TEST_CASE("a pipe whose reader stopped stops no heartbeat - the job finishes") {
  int pipe_fds[2];
  REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
  Reader pager(pipe_fds[0]);
  pager.set_reading(false);  // `pai-launch run | less`, left on its first page
  TempDir marks;
  Cluster cluster(noisy_plan("stall-pipe", 161, 2'000'000, marks / "ready"));
  cluster.set_terminal(pipe_fds[1]);
  cluster.start_all();
  const bool succeeded = wait_for_success(cluster, 30);
  pager.set_reading(true);
  const auto codes = cluster.wait_all(60);
  ::close(pipe_fds[1]);
  CHECK(pager.wait_for_end(std::chrono::seconds(10)));
  const std::string shown = pager.text();
  INFO(shown.substr(shown.size() > 4000 ? shown.size() - 4000 : 0));
  CHECK(succeeded);
  CHECK(codes == std::map<std::string, int>{{"node-1", 0}, {"node-2", 0}});
  expect_one_clean_attempt(cluster);
  CHECK(shown.find("bytes of output were not shown") != std::string::npos);
  CHECK(shown.find("pai-launch: done: exit code 0") != std::string::npos);
  ::close(pipe_fds[0]);
  CHECK(leftover_processes("stall-pipe").empty());
}

namespace {

// An ext4 file system in a file, loop-mounted at `at`; thawed and unmounted on the way out,
// whatever happens (a watchdog thaws it after 60 s even if this process dies).
class FreezableFs {
 public:
  explicit FreezableFs(const std::string& at) : at_(at) {
    std::filesystem::create_directories(at_);
    const std::string image = image_dir_ / "fs.img";
    ok_ = std::system(("truncate -s 160M " + image + " && mkfs.ext4 -q " + image +
                       " && mount -o loop " + image + " " + at_ + " 2>/dev/null")
                          .c_str()) == 0;
  }
  ~FreezableFs() {
    thaw();
    if (ok_) std::system(("umount " + at_ + " || umount -l " + at_).c_str());
  }
  bool ok() const { return ok_; }
  void freeze() {
    watchdog_ = ::fork();
    if (watchdog_ == 0) {
      ::setpgid(0, 0);  // its sleep goes with it
      ::execl("/bin/sh", "sh", "-c", ("sleep 60; fsfreeze -u " + at_).c_str(), nullptr);
      ::_exit(127);
    }
    ::setpgid(watchdog_, watchdog_);  // also here: the kill below may come before the child's
    frozen_ = std::system(("fsfreeze -f " + at_).c_str()) == 0;
  }
  void thaw() {
    if (frozen_) std::system(("fsfreeze -u " + at_).c_str());
    frozen_ = false;
    if (watchdog_ > 0) {
      ::kill(-watchdog_, SIGKILL);
      ::waitpid(watchdog_, nullptr, 0);
      watchdog_ = -1;
    }
  }
  bool frozen() const { return frozen_; }

 private:
  TempDir image_dir_;
  std::string at_;
  bool ok_ = false;
  bool frozen_ = false;
  pid_t watchdog_ = -1;
};

}  // namespace

TEST_CASE(
    "a log file system frozen for 4 s stops no heartbeat - output beyond the bound is "
    "dropped, counted and marked") {
  if (::geteuid() != 0) {
    WARN("not root: fsfreeze and a loop mount need root; this case did not run");
    return;
  }
  TempDir marks;
  // 40 MB per rank, while the logs cannot be written: more than the 32 MiB a launcher holds.
  // The ranks' last line waits until the log writer has caught up after the thaw: said while
  // the queue is still full it would be dropped (and its marker, not the line, ends the log).
  Cluster cluster(
      noisy_plan("stall-fsfreeze", 162, 40'000'000, marks / "ready", marks / "caught-up"));
  FreezableFs fs(cluster.dir() / "logs");
  if (!fs.ok()) {
    WARN("no loop device to mount an ext4 image on: this case did not run");
    return;
  }
  cluster.start_all();
  REQUIRE(wait_for_file(marks / "ready-0", 20));
  REQUIRE(wait_for_file(marks / "ready-1", 20));
  fs.freeze();
  REQUIRE(fs.frozen());
  std::this_thread::sleep_for(std::chrono::seconds(4));
  fs.thaw();
  const std::filesystem::path rank_log = cluster.dir() / "logs/worker-0/rank-0.attempt-0.log";
  // What waited (at least the bound less one piece, as the drops began) reaches the log.
  CHECK(eventually(
      [&] {
        std::error_code error;
        const auto size = std::filesystem::file_size(rank_log, error);
        return !error && size >= pai::launcher::kLogQueueBytes - (std::size_t{1} << 20);
      },
      30));
  spit(marks / "caught-up", "");
  const auto codes = cluster.wait_all(60);
  INFO(cluster.transcript().substr(0, 6000));
  CHECK(codes == std::map<std::string, int>{{"node-1", 0}, {"node-2", 0}});
  expect_one_clean_attempt(cluster);
  const std::string err = cluster.launcher("node-1").err();
  CHECK(count_lines_with(err, "pai-launch: warning: the log file system is not taking writes") ==
        1);
  const std::string node_journal = slurp(cluster.dir() / "logs/worker-0/events.jsonl");
  CHECK(count_lines_with(node_journal, "\"logUnwrittenBytes\":") == 1);
  const std::string log = slurp(rank_log);
  CHECK(log.find("bytes of this rank's output were dropped here: the log file system did not "
                 "take them in time") != std::string::npos);
  CHECK(log.find("rank 0 done") != std::string::npos);  // and it goes on after them
  CHECK(leftover_processes("stall-fsfreeze").empty());
}

}  // namespace stalled_output_test
