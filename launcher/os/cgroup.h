// Containment with cgroup v2: every rank of a launcher in a cgroup of its own under the
// launcher's, so that stopping, restarting and exiting end everything a rank started
// (cgroup.kill), even processes that left its process group, and a launcher killed with
// SIGKILL leaves nothing running (CgroupWatchdog).
//
//   <the launcher's cgroup>/pai-<job>.<node>/<instance>/rank-<n>
//
// Without a writable cgroup v2 with cgroup.kill the launcher keeps process groups and the
// subreaper alone (cgroup_support() says why).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace pai::launcher {

/// A cgroup could not be created, joined or killed; what() names it and says why.
class CgroupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where this process's cgroup v2 folder is (`own_dir`), or why none can be used
/// (`unavailable`, e.g. "no cgroup2 file system is mounted").
struct CgroupSupport {
  std::string own_dir;
  std::string unavailable;
};

/// Finds the cgroup2 mount in `mountinfo` (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on
/// hybrid hosts) and this process's folder from `cgroup` ("0::/path"), and checks that it can
/// be written and offers cgroup.kill (Linux 5.14).
CgroupSupport cgroup_support(const std::string& mountinfo = "/proc/self/mountinfo",
                             const std::string& cgroup = "/proc/self/cgroup");

/// What the kernel counted in a cgroup.
struct CgroupUsage {
  double cpu_seconds = 0;                            ///< cpu.stat usage_usec
  std::optional<std::int64_t> memory_current_bytes;  ///< memory.current, with the controller
  std::optional<std::int64_t> memory_peak_bytes;     ///< memory.peak, with the memory controller
  std::int64_t oom_kills = 0;  ///< memory.events oom_kill, with the memory controller
};

/// Reads `dir`'s cpu.stat, memory.current, memory.peak and memory.events; missing files read as
/// zero/none.
CgroupUsage cgroup_usage(const std::string& dir);

/// The cgroups of one launcher: `parent/name` with a folder per instance and a leaf per rank.
class CgroupTree {
 public:
  /// Creates `parent/name`. A folder of that name left by an earlier launcher of the same job
  /// and node (killed with SIGKILL along with its watchdog) is killed and removed first;
  /// stale_processes() counts what it held. Throws CgroupError.
  CgroupTree(const std::string& parent, const std::string& name);
  /// Kills whatever is left and removes the folders.
  ~CgroupTree();
  CgroupTree(const CgroupTree&) = delete;
  CgroupTree& operator=(const CgroupTree&) = delete;

  const std::string& dir() const { return dir_; }
  int stale_processes() const { return stale_processes_; }

  /// The rank's cgroup, created when missing: `<dir>/<instance>/rank-<rank>`. Throws CgroupError.
  std::string rank_dir(const std::string& instance, int rank);
  /// A cgroup of its own directly under the tree, created when missing: `<dir>/<name>` (a
  /// sanity check's child). Throws CgroupError.
  std::string leaf_dir(const std::string& name);
  /// Kills every process of the instance (cgroup.kill of `<dir>/<instance>`; any folder
  /// under the tree, a leaf_dir() too); no-op when the instance never had a cgroup.
  void kill(const std::string& instance);
  /// Kills every process in `<dir>/<name>` and removes it (destroy_cgroup()).
  void remove(const std::string& name);
  /// Kills every process of every instance.
  void kill_all();

 private:
  std::string dir_;
  int stale_processes_ = 0;
};

/// Opens `dir`/cgroup.procs (close-on-exec) for join_cgroup() in a forked child. Throws
/// CgroupError.
int open_cgroup_procs(const std::string& dir);

/// In a forked child before exec: moves the calling process into the cgroup whose cgroup.procs
/// is `procs_fd`. Async-signal-safe; false when the kernel refused.
bool join_cgroup(int procs_fd);

/// Kills every process in `dir` and its descendants (cgroup.kill), waits up to a second for
/// them to go and removes the folders bottom-up. Returns how many processes it found.
/// Async-signal-safe when `dir` has no sub-folders deeper than two levels (the watchdog's use).
int destroy_cgroup(const std::string& dir);

/// A forked helper that outlives its launcher by a moment: when the launcher dies, however it
/// dies (its pipe's write end closes, even on SIGKILL), the watchdog kills and removes the
/// launcher's cgroup tree, then exits. A launcher that exits cleanly disarms it first.
class CgroupWatchdog {
 public:
  /// Forks the watchdog for `tree_dir`. Throws CgroupError when it cannot.
  explicit CgroupWatchdog(const std::string& tree_dir);
  /// Disarms: the watchdog exits without touching anything.
  ~CgroupWatchdog();
  CgroupWatchdog(const CgroupWatchdog&) = delete;
  CgroupWatchdog& operator=(const CgroupWatchdog&) = delete;

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int pipe_ = -1;  // the write end; the watchdog reads the other
};

}  // namespace pai::launcher
