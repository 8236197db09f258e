// The sanity checks' cgroups: each check's child (a custom command, a GPU check) in a cgroup
// of its own, in a tree of the launcher's beside its ranks' (supervisor/containment.h), so
// that what a check starts ends with the check, also what left its process group:
//
//   <the launcher's cgroup>/pai_checks-<job>.<node>/check-<n>
//
// `pai_` cannot begin a ranks' tree (`pai-<job>.<node>`, job names are DNS labels). A
// watchdog kills the tree when the launcher is killed with SIGKILL during a check. Without a
// writable cgroup v2 a check's child is held by its process group alone, said once.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "launcher/checks/child_containment.h"
#include "launcher/supervisor/containment.h"

namespace pai::launcher {

/// The name of the checks' tree of `job`'s launcher of `node` ("pai_checks-<job>.<node>"): one
/// per job and node, so a restarted launcher kills what an earlier one's checks left.
std::string check_cgroups_name(const std::string& job, const std::string& node);

class CheckCgroups final : public checks::ChildContainment {
 public:
  /// Makes the tree `name` under the launcher's cgroup (a stale one of that name is killed
  /// first) and its watchdog. `say` gets one line when it is worth telling (no cgroup v2, so
  /// process groups only; a stale tree killed), prefixed "sanity checks: ".
  CheckCgroups(const std::string& name, const std::function<void(const std::string&)>& say);

  /// Whether children get cgroups (false: process groups only).
  bool cgroups() const { return containment_.cgroups(); }

  /// A cgroup `check-<n>` for the next child; nullptr without cgroups, or, said, when it
  /// cannot be made. Safe to call from several threads.
  std::unique_ptr<checks::ContainedChild> contain() override;

 private:
  std::function<void(const std::string&)> say_;
  Containment containment_;
  std::atomic<int> next_{0};
};

}  // namespace pai::launcher
