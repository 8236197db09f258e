// Where a check's child runs beyond its process group: a place of its own (a cgroup, made by
// the launcher: launcher/node/check_cgroups.h) that it cannot leave, so that what a check
// starts in a session of its own (`setsid helper &`) ends with the check.
#pragma once

#include <memory>

namespace pai::checks {

/// The place of one check's child, made before the fork. Destroying it kills every process
/// still in it and removes it.
class ContainedChild {
 public:
  virtual ~ContainedChild() = default;
  /// Called in the forked child before anything else: moves the calling process in, so that
  /// all it starts is in too. Async-signal-safe; false when the kernel refused.
  virtual bool enter() noexcept = 0;
  /// Kills every process in the place: the child and all it started, in its process group or
  /// not.
  virtual void kill() noexcept = 0;
};

/// Makes a place for each check's child.
class ChildContainment {
 public:
  virtual ~ChildContainment() = default;
  /// A new place for the next child; nullptr when none can be made (the child is then held
  /// by its process group alone, as without containment; the implementation says why).
  virtual std::unique_ptr<ContainedChild> contain() = 0;
};

}  // namespace pai::checks
