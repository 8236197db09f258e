#include "launcher/node/check_cgroups.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "launcher/checks/custom_check.h"
#include "launcher/checks/isolated_check.h"
#include "launcher/launcher_harness.h"
#include "launcher/os/cgroup.h"
#include "launcher/os/process.h"

namespace check_cgroups_test {

using namespace pai::launcher;
using pai::checks::CheckResult;
using pai::testing::process_gone_within;
using pai::testing::TempDir;

namespace {

// This process's cgroup v2 folder, or "" with the reason the test is skipped.
std::string cgroup_or_skip() {
  const CgroupSupport support = cgroup_support();
  if (!support.unavailable.empty()) {
    WARN("skipped: cgroup v2 not usable here (" << support.unavailable
                                                << "); run as root on a host with cgroup v2");
  }
  return support.own_dir;
}

// The pid a check's helper wrote to `file`.
pid_t helper_pid(const std::string& file) {
  const pid_t pid = pai::testing::wait_for_pid_in(file);
  REQUIRE(pid > 0);
  return pid;
}

bool gone(pid_t pid) { return pai::testing::process_gone_or_killed(pid, 2); }

// A command that starts a helper in a session of its own (out of the check's process group),
// with its output in `helper_output`, and waits until the helper has written its pid to
// `pid_file` from there (a check that ends at once could take it along with its group before
// it left).
std::string start_helper(const std::string& pid_file, const std::string& helper_output) {
  return "setsid sh -c 'echo $$ > " + pid_file + "; exec sleep 120' " + helper_output +
         " & while [ ! -s " + pid_file + " ]; do sleep 0.01; done; ";
}

std::vector<std::string> subfolders(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  return names;
}

}  // namespace

TEST_CASE("what a custom check starts in a session of its own ends with the check") {
  const std::string own = cgroup_or_skip();
  if (own.empty()) return;
  TempDir dir;
  std::vector<std::string> said;
  CheckCgroups cgroups("pai_checks-test." + std::to_string(::getpid()),
                       [&said](const std::string& text) { said.push_back(text); });
  REQUIRE(cgroups.cgroups());
  struct Ending {
    const char* what;
    std::string tail;
    std::int64_t timeout;
    CheckResult::Status status;
  };
  // The helper keeps the check's output pipe in one case, lets it go in the other.
  for (const std::string output : {"", "> /dev/null 2>&1"}) {
    for (const Ending& ending : {Ending{"passes", "exit 0", 10, CheckResult::Passed},
                                 Ending{"fails", "exit 3", 10, CheckResult::Failed},
                                 Ending{"times out", "sleep 60", 1, CheckResult::Failed}}) {
      INFO("a check that " << ending.what << ", helper output '" << output << "'");
      const std::string pid_file = dir / "helper";
      std::remove(pid_file.c_str());
      const CheckResult result = pai::checks::run_custom_check(
          {"helper", start_helper(pid_file, output) + ending.tail, ending.timeout}, &cgroups);
      CHECK(result.status == ending.status);
      CHECK(gone(helper_pid(pid_file)));
    }
  }
  // Each check's cgroup goes with it.
  CHECK(subfolders(own + "/pai_checks-test." + std::to_string(::getpid())).empty());
  CHECK(said.empty());
}

TEST_CASE("what a GPU check's child starts in a session of its own ends with the check") {
  const std::string own = cgroup_or_skip();
  if (own.empty()) return;
  TempDir dir;
  CheckCgroups cgroups("pai_checks-isolated." + std::to_string(::getpid()),
                       [](const std::string&) {});
  const std::string pid_file = dir / "helper";
  const std::string command = start_helper(pid_file, "> /dev/null 2>&1");
  const CheckResult result = pai::checks::run_isolated(
      "gpu",
      [&command] {
        return pai::checks::make_result(
            "gpu", std::system(command.c_str()) == 0 ? CheckResult::Passed : CheckResult::Failed,
            "helper started");
      },
      std::chrono::seconds(10), &cgroups);
  CHECK(result.status == CheckResult::Passed);
  CHECK(gone(helper_pid(pid_file)));
}

TEST_CASE(
    "a launcher that ends removes its checks' tree - one killed with SIGKILL mid-check "
    "leaves nothing running") {
  const std::string own = cgroup_or_skip();
  if (own.empty()) return;
  TempDir dir;
  const std::string name = "pai_checks-killed." + std::to_string(::getpid());
  {
    CheckCgroups cgroups(name, [](const std::string&) {});
    CHECK(std::filesystem::is_directory(own + "/" + name));
  }
  CHECK_FALSE(std::filesystem::exists(own + "/" + name));

  // A stand-in launcher: a check that starts a helper and hangs; it is killed meanwhile.
  const std::string pid_file = dir / "helper";
  const pid_t launcher = ::fork();
  REQUIRE(launcher >= 0);
  if (launcher == 0) {
    CheckCgroups cgroups(name, [](const std::string&) {});
    pai::checks::run_custom_check(
        {"hangs", start_helper(pid_file, "> /dev/null 2>&1") + "sleep 60", 100}, &cgroups);
    ::_exit(0);
  }
  const pid_t helper = helper_pid(pid_file);
  ::kill(launcher, SIGKILL);
  ::waitpid(launcher, nullptr, 0);
  CHECK(gone(helper));
  // The watchdog removes the tree once everything in it is gone.
  for (int i = 0; i < 500 && std::filesystem::exists(own + "/" + name); ++i) usleep(10000);
  CHECK_FALSE(std::filesystem::exists(own + "/" + name));
}

TEST_CASE("a stale checks' tree of an earlier launcher is killed and said") {
  const std::string own = cgroup_or_skip();
  if (own.empty()) return;
  TempDir dir;
  const std::string name = "pai_checks-stale." + std::to_string(::getpid());
  // What an earlier launcher's check left when it and its watchdog were killed together.
  REQUIRE(::mkdir((own + "/" + name).c_str(), 0755) == 0);
  REQUIRE(::mkdir((own + "/" + name + "/check-0").c_str(), 0755) == 0);
  pai::launcher::SpawnRequest request;
  request.argv = {"/bin/sh", "-c",
                  "setsid sh -c 'echo $$ > " + dir / "helper" + "; exec sleep 120' & wait"};
  request.cgroup_procs_fd = open_cgroup_procs(own + "/" + name + "/check-0");
  const pid_t shell = spawn_process(request);
  ::close(request.cgroup_procs_fd);
  const pid_t helper = helper_pid(dir / "helper");
  std::vector<std::string> said;
  CheckCgroups cgroups(name, [&said](const std::string& text) { said.push_back(text); });
  CHECK(gone(helper));
  CHECK(process_gone_within(shell, 2));
  REQUIRE(said.size() == 1);
  CHECK(said[0] ==
        "sanity checks: killed 2 process(es) an earlier launcher of this job on this "
        "node left in " +
            own + "/" + name);
}

}  // namespace check_cgroups_test
