// A node launcher's authenticated link to its coordinator, on the supervisor's event loop:
// messages in through a callback, heartbeats out, and the coordinator's silence noticed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "launcher/os/event_loop.h"
#include "launcher/net/client.h"

namespace pai::launcher {

class NodeLink {
 public:
  using Clock = std::chrono::steady_clock;
  /// Called for each message from the coordinator.
  using OnMessage = std::function<void(const nlohmann::json&)>;
  /// Called once when the link is gone (closed, broken, or the coordinator silent for
  /// `misses` heartbeat intervals); the text says why.
  using OnLost = std::function<void(const std::string&)>;

  /// Connects and authenticates, retrying refused connections until `deadline` (the
  /// coordinator may still be starting); `waiting` is called once when a first attempt
  /// fails. Throws net::ConnectionError when the deadline passed or the handshake was
  /// rejected (a wrong token is not retried).
  NodeLink(const net::ClientOptions& options, Clock::time_point deadline,
           const std::function<void(const std::string&)>& waiting);
  ~NodeLink();

  /// Starts delivering messages from `loop`. `interval` is the heartbeat interval.
  void attach(EventLoop& loop, std::chrono::milliseconds interval, int misses, OnMessage on_message,
              OnLost on_lost);
  /// Sends a message; a broken connection is reported through on_lost.
  void send(const nlohmann::json& message);
  /// Waits up to `timeout` for one message without a loop (before attach()).
  std::optional<nlohmann::json> receive(std::chrono::milliseconds timeout);

  /// The heartbeat deadline and the coordinator's silence deadline, for the loop's timeout.
  std::optional<Clock::time_point> next_deadline() const;
  /// Sends the heartbeat when due (`heartbeat` builds it) and notices silence.
  void on_deadline(Clock::time_point now, const std::function<nlohmann::json()>& heartbeat);
  bool lost() const { return lost_; }

 private:
  void on_readable();
  void lose(const std::string& why);

  std::unique_ptr<net::Client> client_;
  EventLoop* loop_ = nullptr;
  OnMessage on_message_;
  OnLost on_lost_;
  std::chrono::milliseconds interval_{1000};
  int misses_ = 5;
  Clock::time_point last_received_{};
  Clock::time_point next_heartbeat_{};
  bool lost_ = false;
  bool watching_ = false;
};

}  // namespace pai::launcher
