// The burn a drill's slow-gpu runs on one rank's GPU (docs/drill.md): a process of its own
// (`pai-launch drill-burn GPU SECONDS`, which runs the burn check's GEMMs on that GPU) sharing the
// GPU's time with the rank, as a throttled or contended GPU would. The launcher never touches
// CUDA itself, so the burn is another process; it is the launcher's child, in a process group of
// its own, killed with SIGKILL when the fault ends or the launcher dies (PR_SET_PDEATHSIG), and
// it stops by itself at its seconds all the same.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "launcher/os/event_loop.h"

namespace pai::launcher {

/// What the burner prints on its first line once it burns: the fault is in place from then on.
inline constexpr char kGpuBurningLine[] = "burning GPU ";

class GpuLoad {
 public:
  /// Starts `burner` (its argv, argv[0] a path) with the GPU's index and the seconds appended,
  /// in `env`, its stdout and stderr read on `loop`; `on_burning` is called once, from the
  /// loop, when it says it burns (it may destroy this GpuLoad). Throws SpawnError (os/process.h)
  /// or std::runtime_error when it cannot be started.
  GpuLoad(EventLoop& loop, const std::vector<std::string>& burner, int gpu, int seconds,
          const std::vector<std::pair<std::string, std::string>>& env,
          std::function<void()> on_burning);
  /// Kills the burner's process group with SIGKILL unless it was reaped (the supervisor's
  /// waitpid loop reaps it).
  ~GpuLoad();
  GpuLoad(const GpuLoad&) = delete;
  GpuLoad& operator=(const GpuLoad&) = delete;

  int pid() const { return pid_; }
  int gpu() const { return gpu_; }
  /// Whether it said it burns.
  bool burning() const { return burning_; }
  /// The GPU as the burner named it once it burns ("GPU 1 (NVIDIA H100 80GB HBM3)"); "GPU 1"
  /// before.
  std::string described() const;
  /// Its process was reaped with `wait_status`: it is not killed again. Reads what it still
  /// wrote.
  void exited(int wait_status);
  /// "exit code 1: pai-launch drill-burn: no GPU 3 on this node (2 GPUs)": how it ended, with
  /// the last line it wrote; "" while it runs.
  std::string ending() const { return ending_; }

 private:
  void read();

  EventLoop& loop_;
  int gpu_;
  int pid_ = 0;
  int fd_ = -1;
  std::string output_;  // its last kOutputCap bytes
  bool burning_ = false;
  std::string described_;  // what its burning line says of the GPU
  std::string ending_;
  std::function<void()> on_burning_;
};

}  // namespace pai::launcher
