#include "launcher/os/cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "launcher/launcher_harness.h"
#include "launcher/os/process.h"

namespace cgroup_test {

using namespace pai::launcher;
using pai::testing::process_gone_within;
using pai::testing::spit;
using pai::testing::TempDir;

namespace {

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A process in `dir`'s cgroup that starts a grandchild in a session of its own (out of its
// process group, as daemonizing tools do) and waits; returns the child's pid and writes the
// grandchild's to `grandchild_file`.
pid_t spawn_in(const std::string& dir, const std::string& grandchild_file) {
  SpawnRequest request;
  // The grandchild writes its own pid once it is in its new session.
  request.argv = {"/bin/sh", "-c",
                  "setsid sh -c 'echo $$ > " + grandchild_file + "; exec sleep 60' & wait"};
  request.cgroup_procs_fd = open_cgroup_procs(dir);
  const pid_t pid = spawn_process(request);
  ::close(request.cgroup_procs_fd);
  return pid;
}

pid_t read_pid(const std::string& file) {
  const pid_t pid = pai::testing::wait_for_pid_in(file);
  REQUIRE(pid > 0);
  return pid;
}

// The real cgroup v2 of this process, or a reason to skip the test.
std::string usable_cgroup() {
  const CgroupSupport support = cgroup_support();
  if (!support.unavailable.empty()) WARN("cgroup v2 not usable here: " << support.unavailable);
  return support.own_dir;
}

}  // namespace

TEST_CASE("the cgroup2 mount and this process's folder are found - hybrid hosts too") {
  TempDir dir;
  spit(dir / "mountinfo",
       "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
       "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
       "41 31 0:38 / " +
           dir.path() + " rw,relatime - cgroup2 cgroup2 rw\n");
  spit(dir / "cgroup", "4:memory:/x\n0::/\n");
  spit(dir / "cgroup.procs", "");
  // The probe folder cannot show a cgroup.kill in an ordinary folder: that is what it reports.
  CHECK(cgroup_support(dir / "mountinfo", dir / "cgroup").unavailable ==
        "the kernel has no cgroup.kill (Linux 5.14 or newer needed) in " + dir.path());

  spit(dir / "mountinfo", "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n");
  CHECK(cgroup_support(dir / "mountinfo", dir / "cgroup").unavailable ==
        "no cgroup2 file system is mounted");

  spit(dir / "mountinfo", "41 31 0:38 / " + dir.path() + " rw - cgroup2 cgroup2 rw\n");
  spit(dir / "cgroup", "4:memory:/x\n");
  CHECK(cgroup_support(dir / "mountinfo", dir / "cgroup").unavailable ==
        "this process has no cgroup v2 (no \"0::\" line in " + dir / "cgroup" + ")");

  spit(dir / "cgroup", "0::/not-there\n");
  CHECK(cgroup_support(dir / "mountinfo", dir / "cgroup")
            .unavailable.rfind("the launcher's cgroup " + dir / "not-there" + " is not writable",
                               0) == 0);
}

TEST_CASE("cpu, memory and OOM kills are read from the cgroup's files") {
  TempDir dir;
  CHECK(cgroup_usage(dir.path()).cpu_seconds == 0);
  CHECK_FALSE(cgroup_usage(dir.path()).memory_current_bytes);
  CHECK_FALSE(cgroup_usage(dir.path()).memory_peak_bytes);
  spit(dir / "cpu.stat", "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n");
  spit(dir / "memory.peak", "1073741824\n");
  spit(dir / "memory.current", "536870912\n");
  spit(dir / "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
  const CgroupUsage usage = cgroup_usage(dir.path());
  CHECK(usage.cpu_seconds == 2.5);
  CHECK(usage.memory_peak_bytes == 1073741824);
  CHECK(usage.memory_current_bytes == 536870912);
  CHECK(usage.oom_kills == 1);
}

TEST_CASE("killing an instance's cgroup ends processes that left its process group") {
  const std::string own = usable_cgroup();
  if (own.empty()) return;
  TempDir dir;
  CgroupTree tree(own, "pai-test-kill." + std::to_string(::getpid()));
  const pid_t child = spawn_in(tree.rank_dir("worker-0", 0), dir / "grandchild");
  const pid_t grandchild = read_pid(dir / "grandchild");
  CHECK(::getpgid(grandchild) != ::getpgid(child));
  tree.kill("worker-0");
  CHECK(process_gone_within(child, 5));
  CHECK(process_gone_within(grandchild, 5));
}

TEST_CASE("a stale tree of an earlier launcher is killed and replaced") {
  const std::string own = usable_cgroup();
  if (own.empty()) return;
  TempDir dir;
  const std::string name = "pai-test-stale." + std::to_string(::getpid());
  // The tree an earlier launcher left behind when it died without cleaning up.
  const std::string stale_dir = own + "/" + name;
  for (const std::string& d :
       {stale_dir, stale_dir + "/worker-0", stale_dir + "/worker-0/rank-1"}) {
    REQUIRE(::mkdir(d.c_str(), 0755) == 0);
  }
  const pid_t child = spawn_in(stale_dir + "/worker-0/rank-1", dir / "grandchild");
  const pid_t grandchild = read_pid(dir / "grandchild");
  CgroupTree second(own, name);
  CHECK(second.stale_processes() == 2);  // the shell and its setsid'd sleep
  CHECK(process_gone_within(child, 5));
  CHECK(process_gone_within(grandchild, 5));
  CHECK(is_dir(second.dir()));
  CHECK_FALSE(is_dir(stale_dir + "/worker-0"));
}

TEST_CASE("a launcher killed with SIGKILL leaves nothing running: the watchdog kills its tree") {
  const std::string own = usable_cgroup();
  if (own.empty()) return;
  TempDir dir;
  const std::string name = "pai-test-watchdog." + std::to_string(::getpid());
  const std::string tree_dir = own + "/" + name;
  // A stand-in launcher: builds the tree and its watchdog, starts a process, then waits to be
  // killed.
  const pid_t launcher = ::fork();
  if (launcher == 0) {
    CgroupTree tree(own, name);
    CgroupWatchdog watchdog(tree.dir());
    spawn_in(tree.rank_dir("worker-0", 0), dir / "grandchild");
    spit(dir / "ready", "");
    ::pause();
    ::_exit(0);
  }
  REQUIRE(pai::testing::wait_for_file(dir / "ready"));
  const pid_t grandchild = read_pid(dir / "grandchild");
  ::kill(launcher, SIGKILL);
  ::waitpid(launcher, nullptr, 0);
  CHECK(process_gone_within(grandchild, 5));
  // The watchdog removes the tree once everything in it is gone.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (is_dir(tree_dir) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK_FALSE(is_dir(tree_dir));
}

TEST_CASE("the cgroup watchdog keeps no descriptor of the launcher's but its pipe") {
  TempDir dir;
  const int held = ::dup(2);  // as the coordinator's listening socket or a journal
  REQUIRE(held > 2);
  CgroupWatchdog watchdog(dir / "tree");
  const std::string fds = "/proc/" + std::to_string(watchdog.pid()) + "/fd";
  // The child closes them right after fork: wait until it has.
  bool closed = false;
  for (int i = 0; i < 200 && !closed; ++i) {
    closed = ::access((fds + "/" + std::to_string(held)).c_str(), F_OK) != 0;
    if (!closed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(closed);
  int open = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fds)) {
    (void)entry;
    ++open;
  }
  CHECK(open == 4);  // stdin, stdout, stderr and its pipe
  ::close(held);
}

}  // namespace cgroup_test
