// A node launcher's authenticated link to its coordinator, on the supervisor's event loop:
// messages in through a callback, heartbeats out, and the coordinator's silence noticed.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "launcher/net/client.h"
#include "launcher/node/coordinator_link.h"
#include "launcher/os/event_loop.h"

namespace pai::launcher {

/// The CoordinatorLink over net::Client.
class NodeLink final : public CoordinatorLink {
 public:
  using Clock = std::chrono::steady_clock;

  /// Asked between attempts to connect: a reason to stop trying this coordinator (with
  /// coordinator.ha, another launcher leads now), or "" to go on. A link given one also
  /// retries a coordinator's reject (not a wrong token): under coordinator.ha it may come from
  /// the ended coordinator of an earlier run that the new leader has not dismissed yet.
  using GiveUp = std::function<std::string()>;

  /// A link to the coordinator `options` names, delivering on `loop` once attached. Connects
  /// nothing yet.
  NodeLink(net::ClientOptions options, EventLoop& loop, GiveUp give_up = {});
  ~NodeLink() override;
  NodeLink(const NodeLink&) = delete;
  NodeLink& operator=(const NodeLink&) = delete;

  /// Connects and authenticates, retrying refused connections until `deadline` (the
  /// coordinator may still be starting); `waiting` is called once when a first attempt
  /// fails. Throws net::ConnectionError when the deadline passed or the handshake was
  /// rejected (a wrong token is not retried) or `give_up` gave a reason, net::Interrupted as
  /// soon as the options' stop_requested answers a signal.
  void connect(TimePoint deadline, const OnWaiting& waiting) override;
  /// Starts delivering messages from the loop. `interval` is the heartbeat interval.
  void attach(std::chrono::milliseconds interval, int misses, OnMessage on_message,
              OnLost on_lost) override;
  /// Sends a message; a broken connection is reported through on_lost.
  void send(const net::NodeToCoordinator& message) override;

  /// The heartbeat deadline and the coordinator's silence deadline, for the loop's timeout.
  std::optional<TimePoint> next_deadline() const override;
  /// Sends the heartbeat when due (`heartbeat` builds it) and notices silence.
  void on_deadline(TimePoint now, const std::function<net::NodeHeartbeat()>& heartbeat) override;
  bool lost() const { return lost_; }

 private:
  void on_readable();
  void lose(const std::string& why);

  net::ClientOptions options_;
  EventLoop& loop_;
  GiveUp give_up_;
  std::unique_ptr<net::Client> client_;
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
