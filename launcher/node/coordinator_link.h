// What a node agent needs of its connection to the coordinator: connect and authenticate,
// messages in, messages out, heartbeats, and the coordinator's silence noticed (node_link.h is
// the real one, over TCP on the supervisor's loop).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "launcher/net/protocol.h"

namespace pai::launcher {

/// A node launcher's link to its job's coordinator (docs/protocol.md).
class CoordinatorLink {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  /// Called for each message from the coordinator, as its JSON body: the receiver parses it
  /// against its plan (net::parse_coordinator_to_node).
  using OnMessage = std::function<void(const nlohmann::json&)>;
  /// Called once when the link is gone (closed, broken, or the coordinator silent for
  /// `misses` heartbeat intervals); the text says why.
  using OnLost = std::function<void(const std::string&)>;
  /// Told once, when a first attempt to connect failed, why (the coordinator may still be
  /// starting).
  using OnWaiting = std::function<void(const std::string&)>;

  virtual ~CoordinatorLink() = default;

  /// Connects and authenticates, retrying refused connections until `deadline`. Throws
  /// net::ConnectionError when the deadline passed or the handshake was rejected, and
  /// net::Interrupted within 100 ms of a stop signal (SIGTERM, SIGINT, SIGHUP).
  virtual void connect(TimePoint deadline, const OnWaiting& waiting) = 0;
  /// After connect(): starts delivering messages, one heartbeat each `interval`, and reports
  /// the link lost when nothing arrived for `misses` intervals.
  virtual void attach(std::chrono::milliseconds interval, int misses, OnMessage on_message,
                      OnLost on_lost) = 0;
  /// Sends a message; a broken connection is reported through on_lost. Nothing is sent once
  /// the link is lost.
  virtual void send(const net::NodeToCoordinator& message) = 0;
  /// When on_deadline() next has something to do (the heartbeat or the silence deadline);
  /// none before attach() or once lost.
  virtual std::optional<TimePoint> next_deadline() const = 0;
  /// Sends the heartbeat when due (`heartbeat` builds it) and notices the coordinator's
  /// silence.
  virtual void on_deadline(TimePoint now, const std::function<net::NodeHeartbeat()>& heartbeat) = 0;
};

}  // namespace pai::launcher
