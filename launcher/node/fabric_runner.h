// What a node agent needs to take its part in the job-wide fabric check (design §12,
// issue 15): listen for a partner or connect to one and measure the link between them,
// without stopping its heartbeats (background_fabric.h is the real one).
#pragma once

#include <functional>

#include "launcher/net/protocol.h"

namespace pai::launcher {

/// Measures fabric pairs in the background.
class FabricRunner {
 public:
  /// Called on the agent's thread with each message to send the coordinator.
  using Send = std::function<void(net::NodeToCoordinator)>;

  virtual ~FabricRunner() = default;

  /// Listens for the partner of `request`: `send` gets `fabric-listening` once listening,
  /// or `fabric-result` with the error when it cannot listen.
  virtual void listen(const net::FabricListen& request, Send send) = 0;
  /// Connects to the partner `request` names and measures: `send` gets `fabric-result`
  /// once done, with the figures or the error.
  virtual void connect(const net::FabricConnect& request, Send send) = 0;
};

}  // namespace pai::launcher
