#include "launcher/os/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "launcher/os/fd.h"
#include "libpai/inherited_fds.h"

namespace pai::launcher {

namespace {

std::string errno_text() { return std::strerror(errno); }

// ---- Async-signal-safe helpers (the watchdog runs them in a forked child) ----

// dst = a + "/" + b, truncated to `size`; false when it did not fit.
bool join_path(char* dst, std::size_t size, const char* a, const char* b) {
  const std::size_t la = std::strlen(a), lb = std::strlen(b);
  if (la + 1 + lb + 1 > size) return false;
  std::memcpy(dst, a, la);
  dst[la] = '/';
  std::memcpy(dst + la + 1, b, lb + 1);
  return true;
}

bool write_file(const char* dir, const char* file, const char* text) {
  char path[4096];
  if (!join_path(path, sizeof path, dir, file)) return false;
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::write(fd, text, std::strlen(text));
  ::close(fd);
  return n == static_cast<ssize_t>(std::strlen(text));
}

int count_lines(const char* dir, const char* file) {
  char path[4096];
  if (!join_path(path, sizeof path, dir, file)) return 0;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[4096];
  int lines = 0;
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
    for (ssize_t k = 0; k < n; ++k) lines += buffer[k] == '\n';
  }
  ::close(fd);
  return lines;
}

struct linux_dirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

// Calls visit(child_path) for each sub-folder of `dir`; getdents64 needs no allocation.
template <class Visit>
void for_each_subdir(const char* dir, Visit&& visit) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(linux_dirent64) char buffer[4096];
  for (long n; (n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0;) {
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const linux_dirent64*>(buffer + at);
      at += entry->d_reclen;
      if (entry->d_type != DT_DIR || entry->d_name[0] == '.') continue;
      char child[4096];
      if (join_path(child, sizeof child, dir, entry->d_name)) visit(child);
    }
  }
  ::close(fd);
}

int count_tree(const char* dir, int depth) {
  int count = count_lines(dir, "cgroup.procs");
  if (depth > 0)
    for_each_subdir(dir, [&](const char* child) { count += count_tree(child, depth - 1); });
  return count;
}

void remove_tree(const char* dir, int depth) {
  if (depth > 0) for_each_subdir(dir, [&](const char* child) { remove_tree(child, depth - 1); });
  // A killed process leaves its cgroup a moment later: retry for up to a second.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(dir) == 0 || errno == ENOENT) return;
    if (errno != EBUSY) return;
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

// How deep a launcher's tree goes below its folder: instance, then rank.
constexpr int kTreeDepth = 2;

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void make_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw CgroupError("cannot create the cgroup " + path + ": " + errno_text());
  }
}

// The value of `key` in a "key value" file such as cpu.stat or memory.events.
std::optional<std::int64_t> keyed_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  std::int64_t value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

// The one number in a file such as memory.current.
std::optional<std::int64_t> number_in(const std::string& path) {
  std::ifstream in(path);
  std::int64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;
}

}  // namespace

CgroupSupport cgroup_support(const std::string& mountinfo, const std::string& cgroup) {
  CgroupSupport support;
  // mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE SUPEROPTIONS".
  std::string mount;
  std::ifstream mounts(mountinfo);
  for (std::string line; std::getline(mounts, line);) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (root == "/") {
      mount = point;
      break;
    }
  }
  if (mount.empty()) {
    support.unavailable = "no cgroup2 file system is mounted";
    return support;
  }
  std::string own;
  std::ifstream groups(cgroup);
  for (std::string line; std::getline(groups, line);) {
    if (line.rfind("0::", 0) == 0) own = line.substr(3);
  }
  if (own.empty()) {
    support.unavailable = "this process has no cgroup v2 (no \"0::\" line in " + cgroup + ")";
    return support;
  }
  const std::string dir = own == "/" ? mount : mount + own;
  if (::access((dir + "/cgroup.procs").c_str(), W_OK) != 0) {
    support.unavailable = "the launcher's cgroup " + dir +
                          " is not writable (on systemd hosts start it with `systemd-run --scope "
                          "-p Delegate=yes`)";
    return support;
  }
  // cgroup.kill exists in every non-root cgroup of a kernel that has it.
  struct stat st {};
  const std::string probe = dir + "/pai-probe." + std::to_string(::getpid());
  bool has_kill = false;
  if (::mkdir(probe.c_str(), 0755) == 0) {
    has_kill = ::stat((probe + "/cgroup.kill").c_str(), &st) == 0;
    ::rmdir(probe.c_str());
  }
  if (!has_kill) {
    support.unavailable = "the kernel has no cgroup.kill (Linux 5.14 or newer needed) in " + dir;
    return support;
  }
  support.own_dir = dir;
  return support;
}

CgroupUsage cgroup_usage(const std::string& dir) {
  CgroupUsage usage;
  if (auto usec = keyed_value(dir + "/cpu.stat", "usage_usec")) {
    usage.cpu_seconds = static_cast<double>(*usec) / 1e6;
  }
  usage.memory_current_bytes = number_in(dir + "/memory.current");
  usage.memory_peak_bytes = number_in(dir + "/memory.peak");
  usage.oom_kills = keyed_value(dir + "/memory.events", "oom_kill").value_or(0);
  return usage;
}

int destroy_cgroup(const std::string& dir) {
  if (!is_dir(dir)) return 0;
  const int found = count_tree(dir.c_str(), kTreeDepth);
  write_file(dir.c_str(), "cgroup.kill", "1");
  remove_tree(dir.c_str(), kTreeDepth);
  return found;
}

CgroupTree::CgroupTree(const std::string& parent, const std::string& name)
    : dir_(parent + "/" + name) {
  if (is_dir(dir_)) stale_processes_ = destroy_cgroup(dir_);
  make_dir(dir_);
}

CgroupTree::~CgroupTree() { destroy_cgroup(dir_); }

std::string CgroupTree::rank_dir(const std::string& instance, int rank) {
  const std::string instance_dir = dir_ + "/" + instance;
  make_dir(instance_dir);
  const std::string dir = instance_dir + "/rank-" + std::to_string(rank);
  make_dir(dir);
  return dir;
}

std::string CgroupTree::leaf_dir(const std::string& name) {
  const std::string dir = dir_ + "/" + name;
  make_dir(dir);
  return dir;
}

void CgroupTree::remove(const std::string& name) { destroy_cgroup(dir_ + "/" + name); }

void CgroupTree::kill(const std::string& instance) {
  const std::string instance_dir = dir_ + "/" + instance;
  if (is_dir(instance_dir)) write_file(instance_dir.c_str(), "cgroup.kill", "1");
}

void CgroupTree::kill_all() { write_file(dir_.c_str(), "cgroup.kill", "1"); }

int open_cgroup_procs(const std::string& dir) {
  const int fd = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE))
    throw_fd_error("cannot join the cgroup " + dir);
  if (fd < 0) throw CgroupError("cannot join the cgroup " + dir + ": " + errno_text());
  return fd;
}

bool join_cgroup(int procs_fd) { return ::write(procs_fd, "0", 1) == 1; }

CgroupWatchdog::CgroupWatchdog(const std::string& tree_dir) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw CgroupError("cannot start the cgroup watchdog: pipe: " + errno_text());
  }
  char dir[4096];
  if (tree_dir.size() + 1 > sizeof dir) throw CgroupError("cgroup path too long: " + tree_dir);
  std::memcpy(dir, tree_dir.c_str(), tree_dir.size() + 1);
  pid_ = ::fork();
  if (pid_ < 0) {
    const std::string why = errno_text();
    ::close(fds[0]);
    ::close(fds[1]);
    throw CgroupError("cannot start the cgroup watchdog: fork: " + why);
  }
  if (pid_ == 0) {
    // The watchdog: only async-signal-safe calls (the launcher may have threads). The
    // launcher's signals stay blocked here, so a Ctrl-C to the terminal's group does not end
    // it before the launcher is gone. It keeps nothing of the launcher's but its pipe: not the
    // coordinator's listening socket, not the journals.
    ::close(fds[1]);
    close_above_stderr_but(fds[0]);
    char byte = 0;
    ssize_t n;
    do {
      n = ::read(fds[0], &byte, 1);
    } while (n < 0 && errno == EINTR);
    // A byte: the launcher exits cleanly and cleans up itself. End of file: it died.
    if (n == 0) {
      count_tree(dir, kTreeDepth);
      write_file(dir, "cgroup.kill", "1");
      remove_tree(dir, kTreeDepth);
    }
    ::_exit(0);
  }
  ::close(fds[0]);
  pipe_ = fds[1];
}

CgroupWatchdog::~CgroupWatchdog() {
  if (pipe_ >= 0) {
    (void)::write(pipe_, "q", 1);
    ::close(pipe_);
  }
  if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
}

}  // namespace pai::launcher
