#include "launcher/node/node_link.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace pai::launcher {

NodeLink::NodeLink(net::ClientOptions options, EventLoop& loop, GiveUp give_up)
    : options_(std::move(options)), loop_(loop), give_up_(std::move(give_up)) {}

void NodeLink::connect(TimePoint deadline, const OnWaiting& waiting) {
  bool told = false;
  const std::string where = options_.address + ":" + std::to_string(options_.port);
  // Launchers usually start together with the coordinator's: retry soon, then back off.
  auto pause = std::chrono::milliseconds(20);
  for (;;) {
    try {
      client_ = std::make_unique<net::Client>(options_);
      return;
    } catch (const net::ConnectionError& e) {
      const std::string what = e.what();
      // A coordinator that answered and refused us will refuse us again; but with
      // coordinator.ha (give_up_ set) the refusal may be an ended coordinator an earlier run
      // left on the address of a leader that has not dismissed it yet: tried again until
      // give_up_ says the leader moved. A wrong job token never passes.
      const bool rejected = what.find("rejected") != std::string::npos;
      if (what.find("job token") != std::string::npos || (rejected && !give_up_)) throw;
      if (Clock::now() >= deadline) throw;
      if (give_up_) {
        if (std::string why = give_up_(); !why.empty()) {
          throw net::ConnectionError(where + ": " + why);
        }
      }
      if (!told && waiting) {
        waiting(what);
        told = true;
      }
    }
    // A stop signal ends the wait within 100 ms, whatever the pause.
    const auto resume = Clock::now() + pause;
    while (Clock::now() < resume) {
      if (options_.stop_requested) {
        if (const int signal = options_.stop_requested()) throw net::Interrupted(where, signal);
      }
      std::this_thread::sleep_for(std::min<Clock::duration>(resume - Clock::now(),
                                                            std::chrono::milliseconds(100)));
    }
    pause = std::min<std::chrono::milliseconds>(pause * 2, std::chrono::milliseconds(500));
  }
}

NodeLink::~NodeLink() {
  if (watching_) loop_.unwatch(client_->native_handle());
}

void NodeLink::attach(std::chrono::milliseconds interval, int misses, OnMessage on_message,
                      OnLost on_lost) {
  interval_ = interval;
  misses_ = misses;
  on_message_ = std::move(on_message);
  on_lost_ = std::move(on_lost);
  last_received_ = Clock::now();
  next_heartbeat_ = last_received_;
  loop_.watch(client_->native_handle(), [this] { on_readable(); });
  watching_ = true;
}

void NodeLink::send(const net::NodeToCoordinator& message) {
  if (lost_ || !client_) return;
  try {
    client_->send(net::to_json(message));
  } catch (const net::ConnectionError& e) {
    lose(std::string("lost the coordinator: ") + e.what());
  }
}

void NodeLink::on_readable() {
  try {
    // Everything already here, then back to the loop.
    do {
      auto message = client_->receive(std::chrono::milliseconds(0));
      if (!message) break;
      last_received_ = Clock::now();
      if (on_message_) on_message_(*message);
      if (lost_) return;
    } while (client_->has_buffered());
  } catch (const net::ConnectionError& e) {
    lose(std::string("lost the coordinator: ") + e.what());
  }
}

void NodeLink::lose(const std::string& why) {
  if (lost_) return;
  lost_ = true;
  if (watching_) {
    loop_.unwatch(client_->native_handle());
    watching_ = false;
  }
  if (on_lost_) on_lost_(why);
}

std::optional<NodeLink::TimePoint> NodeLink::next_deadline() const {
  if (lost_ || !watching_) return std::nullopt;
  return std::min(next_heartbeat_, last_received_ + interval_ * misses_);
}

void NodeLink::on_deadline(TimePoint now, const std::function<net::NodeHeartbeat()>& heartbeat) {
  if (lost_ || !watching_) return;
  if (now >= last_received_ + interval_ * misses_) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_received_);
    char buf[64];
    std::snprintf(buf, sizeof buf, "no heartbeat from the coordinator for %.1fs",
                  static_cast<double>(ms.count()) / 1000.0);
    lose(buf);
    return;
  }
  if (now >= next_heartbeat_) {
    next_heartbeat_ = now + interval_;
    send(net::NodeToCoordinator{heartbeat()});
  }
}

}  // namespace pai::launcher
