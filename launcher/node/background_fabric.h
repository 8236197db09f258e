// The FabricRunner of a node launcher (design §12, issue 15): each fabric pair measured with
// the TCP engine (launcher/checks/fabric_tcp.h) in a thread of its own, its outcome handed
// back on the supervisor's loop, so heartbeats keep flowing while a pair measures.
#pragma once

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "launcher/node/fabric_runner.h"
#include "launcher/os/event_loop.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// Measures this node's fabric pairs with the plan's sanityCheck.fabric settings, from and
/// to the address of the plan's fabric interface when it names one (else any address).
class BackgroundFabric final : public FabricRunner {
 public:
  /// `plan` and `loop` must outlive this.
  BackgroundFabric(const Plan& plan, EventLoop& loop);
  /// Waits for measurements still running (each is bounded by the fabric timeout).
  ~BackgroundFabric() override;
  BackgroundFabric(const BackgroundFabric&) = delete;
  BackgroundFabric& operator=(const BackgroundFabric&) = delete;

  void listen(const net::FabricListen& request, Send send) override;
  void connect(const net::FabricConnect& request, Send send) override;

 private:
  struct Measurement;
  /// Runs `work` in a thread; what it returns is sent with `send` on the loop.
  void run(std::function<net::NodeToCoordinator()> work, Send send);
  /// On the loop: sends what finished measurements returned, joins their threads.
  void deliver();
  /// The fabric interface's first address, "" when the plan names none or it has none.
  std::string local_address() const;

  const Plan& plan_;
  EventLoop& loop_;
  int pipe_[2] = {-1, -1};
  std::mutex mutex_;
  std::vector<std::unique_ptr<Measurement>> running_;  // guarded by mutex_
};

}  // namespace pai::launcher
