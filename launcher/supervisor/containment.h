// The supervisor's containment of its ranks: a cgroup v2 per rank under the launcher's own
// (os/cgroup.h) with a watchdog for a launcher killed with SIGKILL, or, where cgroup v2 cannot
// be used, process groups and the subreaper alone, said once. The sanity checks' children get
// a tree of their own the same way (node/check_cgroups.h), a leaf per child.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "launcher/os/cgroup.h"

namespace pai::launcher {

class Containment {
 public:
  /// `name` names the launcher's tree ("pai-<job>.<node>"); empty = process groups only, said
  /// nowhere (unit tests, `check`). `say` gets the one line about what was chosen when it is
  /// worth telling (no cgroup v2; a stale tree of an earlier launcher was removed).
  Containment(const std::string& name, const std::function<void(const std::string&)>& say);
  ~Containment();
  Containment(const Containment&) = delete;
  Containment& operator=(const Containment&) = delete;

  bool cgroups() const { return tree_ != nullptr; }
  /// The cgroup.procs descriptor a rank's child joins through (SpawnRequest::cgroup_procs_fd),
  /// or -1 without cgroups. The caller closes it. Throws CgroupError.
  int open_rank(const std::string& instance, int rank);
  /// A cgroup of its own directly under the tree for a process that is no rank (a sanity
  /// check's child): the cgroup.procs descriptor it joins through, or -1 without cgroups.
  /// The caller closes it. Throws CgroupError.
  int open_leaf(const std::string& name);
  /// Kills every process of the instance (or of leaf `instance`), in or out of its process
  /// group (no-op without cgroups).
  void kill(const std::string& instance);
  /// Kills what is left in leaf `name` and removes its cgroup (no-op without cgroups).
  void remove_leaf(const std::string& name);
  /// The rank's cgroup folder (`<tree>/<instance>/rank-<n>`); empty without cgroups.
  std::string rank_cgroup(const std::string& instance, int rank) const;
  /// What the rank's cgroup counted; nullopt without cgroups.
  std::optional<CgroupUsage> usage(const std::string& instance, int rank) const;

 private:
  std::unique_ptr<CgroupTree> tree_;
  std::unique_ptr<CgroupWatchdog> watchdog_;
};

}  // namespace pai::launcher
