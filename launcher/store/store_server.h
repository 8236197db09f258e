// The ranks' key-value store, served by the launcher next to rank 0 (issue 39, "no store
// wait"): torch's TCPStore protocol (store_protocol.h) on MASTER_PORT, from before the ranks
// start until the launcher exits, so no rank's process-group set-up waits for rank 0's own
// store to listen (torch 1.13's client retries a refused connection once a second). The ranks
// are told with TORCHELASTIC_USE_AGENT_STORE=True, as torchrun's agent tells its workers.
//
// It runs on a thread of its own (Boost.Asio), never on the launcher's loop: a rank that stops
// reading its replies delays nobody's heartbeat. Bounded: connections at once (also by the
// open files limit: connection_cap()), the bytes held (key_value_store.h), the bytes queued for
// a client that does not read. A client that breaks the protocol or a limit is closed alone,
// and the launcher's loop learns it through take_incidents(). Out of descriptors all the same
// (the launcher's own pipes and files took them), it tries the next accept every 50 ms, not in
// a loop that would burn a core; the clients' connects wait in the listen queue meanwhile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "launcher/store/store_protocol.h"

namespace pai::launcher::store {

struct StoreServerOptions {
  /// MASTER_ADDR: its address family is listened on, on every address of the host, as torch's
  /// own store does.
  std::string address = "127.0.0.1";
  int port = 0;  ///< MASTER_PORT; 0 = any (tests)
  StoreLimits limits = {};
  std::size_t max_bytes = std::size_t{1} << 30;           ///< keys and values held
  /// At once; a newcomer past it is closed. Lowered to connection_cap() of the open files limit.
  std::size_t max_connections = 65536;
  std::size_t max_queued_bytes = std::size_t{256} << 20;  ///< replies a client has not read
};

/// The connections the store takes at once: `max_connections`, but no more than three quarters
/// of `descriptor_limit` (the soft RLIMIT_NOFILE when the store starts), and at least 1. The
/// last quarter is the launcher's own: its ranks' pipes and log files, journals, the
/// coordinator's connections when it serves the coordinator too, the descriptors it holds back
/// for running out (launcher/os/descriptor_reserve.h). So a flood of clients is refused by the
/// store before the launcher itself runs out of descriptors. A quarter rather than a fixed
/// number: the launcher's own share grows with the nodes and ranks it serves, as the limit
/// `pai-launch` raises to the hard one does (launcher/os/fd.h). 768 of 1,024; 49,152 of 65,536.
std::size_t connection_cap(std::size_t max_connections, std::uint64_t descriptor_limit);

/// A client closed for what it sent, or refused.
struct StoreIncident {
  std::string client;  ///< ADDRESS:PORT
  std::string error;
};

class StoreServer {
 public:
  /// Listens and serves on a thread of its own. Throws std::runtime_error "cannot serve the
  /// ranks' store on ADDRESS:PORT: REASON".
  explicit StoreServer(StoreServerOptions options);
  /// Stops the thread; every connection closes.
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

  /// The port it listens on.
  int port() const;

  /// The incidents since the last call (any thread); past 100 between two calls, the rest are
  /// counted in a last one.
  std::vector<StoreIncident> take_incidents();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher::store
