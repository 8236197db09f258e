#include "launcher/checks/storage_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "libpai/quantity.h"

namespace pai::checks {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// access(W_OK) is always true for root and ignores read-only file systems' subtleties on some
// network mounts, so writability is proven by writing.
std::string probe_writable(const std::string& dir) {
  std::string probe = dir + "/.pai-probe-" + std::to_string(getpid());
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  bool written = write(fd, "x", 1) == 1;
  int saved = errno;
  close(fd);
  unlink(probe.c_str());
  return written ? "" : std::strerror(saved);
}

std::string probe_readable(const std::string& path, bool directory) {
  if (access(path.c_str(), directory ? R_OK | X_OK : R_OK) != 0) return std::strerror(errno);
  if (directory) {
    std::error_code ec;
    fs::directory_iterator it(path, ec);
    if (ec) return ec.message();
  } else {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::strerror(errno);
    close(fd);
  }
  return "";
}

// The output directory, or its nearest existing ancestor when the launcher will create it.
std::string existing_dir(const std::string& path) {
  std::error_code ec;
  fs::path p = path;
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return p.empty() ? "." : p.string();
}

CheckResult finish(const char* name, Clock::time_point start,
                   const std::vector<std::string>& problems, std::string passed_summary) {
  CheckResult result;
  result.name = name;
  if (problems.empty()) {
    result.status = CheckResult::Passed;
    result.summary = std::move(passed_summary);
  } else {
    result.status = CheckResult::Failed;
    result.summary = problems.front();
    if (problems.size() > 1)
      result.summary += " (and " + std::to_string(problems.size() - 1) + " more)";
    for (const auto& p : problems) result.detail += p + "\n";
  }
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace

CheckResult run_mounts_check(const Plan& plan) {
  auto start = Clock::now();
  std::vector<std::string> problems;
  int checked = 0;
  for (const auto& mount : plan.mounts) {
    std::string what = "mount " + mount.name + ": source " + mount.source;
    struct stat st {};
    if (stat(mount.source.c_str(), &st) != 0) {
      problems.push_back(what + " " +
                         (errno == ENOENT ? std::string("does not exist") : std::strerror(errno)));
      continue;
    }
    bool directory = S_ISDIR(st.st_mode);
    std::string why = probe_readable(mount.source, directory);
    if (!why.empty()) {
      problems.push_back(what + " is not readable: " + why);
      continue;
    }
    if (!mount.read_only) {
      why = directory ? probe_writable(mount.source)
                      : (access(mount.source.c_str(), W_OK) == 0 ? "" : std::strerror(errno));
      if (!why.empty()) {
        problems.push_back(what + " is not writable: " + why);
        continue;
      }
    }
    ++checked;
  }
  std::string summary =
      std::to_string(checked) + (checked == 1 ? " mount" : " mounts") + " accessible";
  if (!plan.output.empty()) {
    std::string dir = existing_dir(plan.output);
    std::string why = probe_writable(dir);
    if (!why.empty()) {
      problems.push_back("output directory " +
                         (dir == plan.output ? plan.output : plan.output + " (at " + dir + ")") +
                         " is not writable: " + why);
    } else {
      summary += ", output directory writable";
    }
  }
  if (plan.mounts.empty() && plan.output.empty()) {
    CheckResult result = make_result("mounts", CheckResult::Skipped,
                                     "no mounts and no output directory in the plan");
    result.seconds = seconds_since(start);
    return result;
  }
  return finish("mounts", start, problems, summary);
}

CheckResult run_disk_check(const Plan& plan) {
  auto start = Clock::now();
  std::vector<std::string> paths;
  if (!plan.output.empty()) paths.push_back(existing_dir(plan.output));
  for (const auto& mount : plan.mounts) {
    if (!mount.read_only) paths.push_back(mount.source);
  }
  if (paths.empty()) paths.push_back(fs::current_path().string());

  std::vector<std::string> problems;
  std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
  std::string smallest_at;
  std::int64_t floor = plan.sanity_check.disk_min_free_bytes;
  for (const auto& path : paths) {
    struct statvfs st {};
    if (statvfs(path.c_str(), &st) != 0) {
      problems.push_back("cannot read free space of " + path + ": " + std::strerror(errno));
      continue;
    }
    auto free_bytes =
        static_cast<std::int64_t>(st.f_bavail) * static_cast<std::int64_t>(st.f_frsize);
    if (free_bytes < smallest) {
      smallest = free_bytes;
      smallest_at = path;
    }
    if (free_bytes < floor)
      problems.push_back(path + ": " + human_bytes(free_bytes) + " free, below the floor of " +
                         human_bytes(floor));
  }
  std::string summary;
  if (!smallest_at.empty()) {
    summary = human_bytes(smallest) + " free at " + smallest_at;
    if (floor > 0) summary += " (floor " + human_bytes(floor) + ")";
  }
  CheckResult result = finish("disk", start, problems, summary);
  if (!smallest_at.empty()) result.figure = human_bytes(smallest) + " free";
  return result;
}

}  // namespace pai::checks
