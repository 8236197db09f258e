// The undo of a drill's fault of the node that outlives the node's launcher (docs/drill.md): a
// detached `sh -c 'sleep N && exec COMMAND'` started with the fault, so that a launcher killed
// while its tc rule is on or its disk filled does not leave it past the fault's time. The
// launcher that takes the fault off itself cancels it first.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace pai::launcher {

/// How long after a fault's seconds its delayed undo acts, should the launcher not have.
inline constexpr int kUndoMarginSeconds = 5;

class DelayedUndo {
 public:
  DelayedUndo() = default;
  /// Cancels a pending undo.
  ~DelayedUndo();
  DelayedUndo(const DelayedUndo&) = delete;
  DelayedUndo& operator=(const DelayedUndo&) = delete;

  /// Runs `argv` (argv[0] a path) in `seconds` + kUndoMarginSeconds, in a session of its own
  /// that survives this process, with PATH set to the system folders. Cancels a pending one
  /// first. Throws SpawnError (os/process.h) when it cannot be started.
  void start(const std::vector<std::string>& argv, int seconds);
  /// Kills the pending undo while it still sleeps, its `sleep` with it (the supervisor reaps
  /// them); past its time it may be gone and its pid reused, so it is left alone.
  void cancel();

 private:
  int pid_ = 0;
  std::chrono::steady_clock::time_point acts_at_;
};

}  // namespace pai::launcher
