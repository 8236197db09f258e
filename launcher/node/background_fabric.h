// The FabricRunner of a node launcher (design §12, issue 15): each fabric pair measured with
// the TCP engine (launcher/checks/fabric_tcp.h) and, where the coordinator asks for it, then
// with the NCCL engine (launcher/checks/nccl_check.h, in a child process), in threads of their
// own whose messages are handed back on the supervisor's loop, so heartbeats keep flowing
// while a pair measures.
#pragma once

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "launcher/checks/check_options.h"
#include "launcher/node/fabric_runner.h"
#include "launcher/os/event_loop.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// Measures this node's fabric pairs with the plan's sanityCheck.fabric settings, from and
/// to the address of the plan's fabric interface when it names one (else any address).
class BackgroundFabric final : public FabricRunner {
 public:
  /// Stops and resumes the reaping of every child (Supervisor::set_reap_known_only), so that
  /// the NCCL engine's child is waited for by its own thread.
  using ReapKnownOnly = std::function<void(bool on)>;

  /// `plan` and `loop` must outlive this. `gpu` says where the NCCL engine finds CUDA and
  /// NCCL (tests substitute fakes); `reap_known_only` is called on the loop with true before
  /// an NCCL engine's child starts and with false once it is gone.
  BackgroundFabric(const Plan& plan, EventLoop& loop, checks::CheckOptions gpu = {},
                   ReapKnownOnly reap_known_only = {});
  /// Waits for measurements still running (each is bounded by the fabric timeout).
  ~BackgroundFabric() override;
  BackgroundFabric(const BackgroundFabric&) = delete;
  BackgroundFabric& operator=(const BackgroundFabric&) = delete;

  void listen(const net::FabricListen& request, Send send) override;
  void connect(const net::FabricConnect& request, Send send) override;

 private:
  struct Measurement;
  /// Posts a message from a measurement's thread, to be sent on the loop.
  using Post = std::function<void(net::NodeToCoordinator)>;
  /// Runs `work` in a thread; what it posts is sent with `send` on the loop, in order.
  /// `children`: the work waits for child processes of its own (reaping held meanwhile).
  void run(std::function<void(const Post&)> work, Send send, bool children = false);
  /// On the loop: sends what measurements posted, joins the threads of finished ones.
  void deliver();
  /// The fabric interface's first address, "" when the plan names none or it has none.
  std::string local_address() const;

  const Plan& plan_;
  EventLoop& loop_;
  const checks::CheckOptions gpu_;
  const ReapKnownOnly reap_known_only_;
  int pipe_[2] = {-1, -1};
  std::mutex mutex_;
  std::vector<std::unique_ptr<Measurement>> running_;  // guarded by mutex_
};

}  // namespace pai::launcher
