#include "launcher/checks/storage_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <limits>

#include "launcher/checks/isolated_check.h"
#include "test_plan.h"

namespace storage_check_test {

using namespace pai::checks;
namespace fs = std::filesystem;

namespace {

// A temporary directory tree, removed on destruction.
struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/pai-storage-XXXXXX";
    path = mkdtemp(pattern);
    chmod(path.c_str(), 0755);
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::all, ec);
    for (auto& e : fs::recursive_directory_iterator(path, ec))
      fs::permissions(e.path(), fs::perms::all, ec);
    fs::remove_all(path, ec);
  }
  std::string make(const std::string& name, mode_t mode) const {
    fs::path p = path / name;
    fs::create_directories(p);
    chmod(p.c_str(), mode);
    return p.string();
  }
};

// Root may write anywhere; permission bits only bind an unprivileged user, so the check runs as
// nobody when the tests run as root.
CheckResult as_unprivileged(const std::function<CheckResult()>& check) {
  if (geteuid() != 0) return check();
  return run_isolated(
      "mounts",
      [&]() -> CheckResult {
        if (setgid(65534) != 0 || setuid(65534) != 0)
          return make_result("mounts", CheckResult::Failed, "setuid");
        return check();
      },
      std::chrono::seconds(20));
}

pai::Mount mount(const std::string& name, const std::string& source, bool read_only) {
  return {name, source, "/" + name, read_only};
}

}  // namespace

TEST_CASE("accessible mounts and a writable output directory pass") {
  TempDir tmp;
  pai::Plan plan = test::one_node_plan();
  plan.mounts = {mount("data", tmp.make("data", 0555), true),
                 mount("scratch", tmp.make("scratch", 0777), false)};
  plan.output = tmp.make("out", 0777) + "/run-1/checkpoints";
  CheckResult r = as_unprivileged([&] { return run_mounts_check(plan); });
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary == "2 mounts accessible, output directory writable");
  CHECK_FALSE(fs::exists(plan.output));
  CHECK(fs::is_empty(tmp.path / "scratch"));
}

TEST_CASE("a missing source - an unreadable read-only mount and an unwritable mount fail") {
  TempDir tmp;
  pai::Plan plan = test::one_node_plan();
  std::string secret = tmp.make("secret", 0700);
  std::string frozen = tmp.make("frozen", 0555);
  plan.mounts = {mount("gone", (tmp.path / "gone").string(), true), mount("secret", secret, true),
                 mount("frozen", frozen, false)};
  plan.output = frozen + "/out";
  CheckResult r = as_unprivileged([&] { return run_mounts_check(plan); });
  CHECK(r.status == CheckResult::Failed);
  CHECK(r.summary ==
        "mount gone: source " + (tmp.path / "gone").string() + " does not exist (and 3 more)");
  CHECK(r.detail == "mount gone: source " + (tmp.path / "gone").string() + " does not exist\n" +
                        "mount secret: source " + secret + " is not readable: Permission denied\n" +
                        "mount frozen: source " + frozen + " is not writable: Permission denied\n" +
                        "output directory " + frozen + "/out (at " + frozen +
                        ") is not writable: Permission denied\n");
}

TEST_CASE("no mounts and no output directory is skipped") {
  CheckResult r = run_mounts_check(test::one_node_plan());
  CHECK(r.status == CheckResult::Skipped);
  CHECK(r.summary == "no mounts and no output directory in the plan");
}

TEST_CASE("free space above the floor passes and reports the smallest") {
  TempDir tmp;
  pai::Plan plan = test::one_node_plan();
  plan.output = tmp.make("out", 0755);
  plan.sanity_check.disk_min_free_bytes = 1;
  CheckResult r = run_disk_check(plan);
  CHECK(r.status == CheckResult::Passed);
  CHECK(r.summary.find(" free at " + plan.output + " (floor 1 B)") != std::string::npos);
  CHECK(r.figure.ends_with(" free"));
}

TEST_CASE("an impossible free-space floor fails") {
  TempDir tmp;
  pai::Plan plan = test::one_node_plan();
  plan.output = tmp.make("out", 0755) + "/not-yet";
  plan.mounts = {mount("data", tmp.make("data", 0755), true)};
  plan.sanity_check.disk_min_free_bytes = std::numeric_limits<std::int64_t>::max();
  CheckResult r = run_disk_check(plan);
  CHECK(r.status == CheckResult::Failed);
  std::string at = (tmp.path / "out").string() + ": ";
  CHECK(r.summary.rfind(at, 0) == 0);
  CHECK(r.summary.ends_with(" free, below the floor of 8.0 EiB"));
}

}  // namespace storage_check_test
