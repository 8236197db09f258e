// The coordinator's network side: one Boost.Asio event loop in its own thread (no thread per
// peer) that accepts launchers and control clients, authenticates them (net/auth.h), frames
// their messages (net/frame.h), watches heartbeats and carries out what CoordinatorMachine
// decides. Rejected connections (no or wrong token, replays, bad frames, floods) are logged
// and closed; the job is served on.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_machine.h"
#include "libpai/plan.h"

namespace pai::launcher::coordinator {

struct ServerOptions {
  std::string listen_address = "0.0.0.0";  ///< where to listen
  int port = 0;                            ///< 0 = any (tests); the plan's coordinator port
  std::string token;
  CoordinatorSettings settings;
  /// Receives every Record (events.jsonl + terminal); called on the server's thread. Empty:
  /// records are dropped.
  std::function<void(const Record&)> record;
  /// With coordinator.ha: called once, on the server's thread, when every other launcher went
  /// silent at once while this node's is heard (this node is cut off), in place of failing the
  /// job: another launcher can lead. It must not block. Empty: the job fails.
  std::function<void(const std::string& reason)> on_cut_off;

  // Flood limits (docs/protocol.md); tests shrink them.
  /// A connection that has not finished the handshake by then is rejected and closed.
  std::chrono::milliseconds handshake_timeout{10000};
  /// At most this many connections from one address may be unauthenticated (still in the
  /// handshake) at once: a new one beyond it evicts the oldest of them, so idle sockets cannot
  /// keep out a client of the same address, which authenticates at once. At least 1.
  std::size_t max_unauthenticated_per_address = 64;
  /// Likewise in all: a new one beyond it evicts the oldest of the address holding the most.
  /// Authenticated connections never count and are never evicted. At least 1. The server
  /// raises it to twice the plan's machines (hosts and spares): every launcher of the job
  /// starting at once must fit, or evicting each other they reconnect in a storm.
  std::size_t max_unauthenticated = 4096;
  /// A peer with more output queued than this (it does not read) is dropped.
  std::size_t max_queued_output = std::size_t{64} << 20;
  /// How long queued output may take to drain when a connection closes or the job finishes.
  std::chrono::milliseconds flush_timeout{2000};
};

/// Runs the coordinator in a background thread from construction to destruction.
///
/// Records of its own, besides the machine's: "connections-refused" {address, count, reason}
/// for connections that never authenticated (failed or late handshake, evicted, accept
/// errors), counted per address and reason and at most one round a second (RefusalSummary),
/// "connection-rejected" {address, node, reason} (an authenticated peer broke the protocol:
/// bad frame, replay, truncated frame), "connection-dropped" {address, node, reason} (output
/// queue over the limit), "coordinator-error" {what}, and "metrics-endpoint" {url} when the
/// plan's `monitoring` has it serve Prometheus metrics on its loop (metrics_http.h).
/// The machine hears disconnected() for every connection it was told about, unless it closed
/// it itself (a Close action): a lost connection, a protocol error, missed heartbeats
/// ("no heartbeat for 5.0s") or a dropped peer.
class CoordinatorServer {
 public:
  /// Binds and listens (throws std::runtime_error naming the address and the reason), then
  /// starts the thread. Throws std::invalid_argument for a limit of unauthenticated
  /// connections of 0.
  CoordinatorServer(Plan plan, ServerOptions options);
  /// Stops the loop and joins the thread; open connections are closed.
  ~CoordinatorServer();
  CoordinatorServer(const CoordinatorServer&) = delete;
  CoordinatorServer& operator=(const CoordinatorServer&) = delete;

  /// The port it listens on.
  int port() const;
  /// A new reading of the job's goodput account (report/goodput_watch.h) for `status` and the
  /// metrics; safe from any thread.
  void goodput(const GoodputReading& reading);
  /// Blocks until the machine finished and its last messages were flushed (or `timeout`
  /// passed); the job's exit code, or -1 on timeout.
  int wait(std::chrono::milliseconds timeout);
  /// Once the job finished: the plan's machines that had no launcher connected at the end
  /// (Finish::absent); empty before.
  std::vector<std::string> absent() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher::coordinator
