// Pieces for tests of the coordinator server over real sockets on the loopback: a plan whose
// hosts live on 127.0.0.x (so the join's address check passes), a journal that collects the
// server's records, launchers built on net::Client, and raw connections that speak the
// protocol by hand (or break it on purpose).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/coordinator/coordinator_server.h"
#include "launcher/net/auth.h"
#include "launcher/net/client.h"
#include "launcher/net/frame.h"
#include "libpai/placement.h"
#include "support/plan_fixture.h"

namespace pai::testing {

using namespace std::chrono_literals;
using launcher::coordinator::Json;
using launcher::coordinator::Record;

inline const std::string kToken = "test-token-0123456789abcdef";

/// make_test_plan(2, 1) (instances worker-0, worker-1, ps-0 on node-0..node-2) with node-i at
/// 127.0.0.(i+1), spare-0 at 127.0.1.1, and no sanity checks: a join goes straight to assign.
inline Plan loopback_plan() {
  Plan plan = make_test_plan(2, 1);
  for (std::size_t i = 0; i < plan.hosts.size(); ++i) {
    plan.hosts[i].address = "127.0.0." + std::to_string(i + 1);
  }
  plan.spares[0].address = "127.0.1.1";
  plan.sanity_check.enabled = false;
  place(plan, plan.hosts);
  return plan;
}

/// The address node-i connects from in loopback_plan().
inline std::string node_address(int i) { return "127.0.0." + std::to_string(i + 1); }

/// Collects the server's records (written on its thread, read on the test's).
class Journal {
 public:
  std::function<void(const Record&)> sink() {
    return [this](const Record& record) {
      std::lock_guard<std::mutex> lock(mutex_);
      records_.push_back(record);
      changed_.notify_all();
    };
  }
  /// The first record of `kind` for which `match` holds, waiting up to `timeout` for it.
  std::optional<Record> wait_for(const std::string& kind,
                                 const std::function<bool(const Record&)>& match = nullptr,
                                 std::chrono::milliseconds timeout = 5s) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::optional<Record> found;
    changed_.wait_for(lock, timeout, [&] {
      for (const auto& record : records_) {
        if (record.kind == kind && (!match || match(record))) {
          found = record;
          return true;
        }
      }
      return false;
    });
    return found;
  }
  /// Whether `count` records of `kind` arrive within `timeout`.
  bool wait_count(const std::string& kind, std::size_t count,
                  std::chrono::milliseconds timeout = 5s) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      std::size_t n = 0;
      for (const auto& record : records_) n += record.kind == kind;
      return n >= count;
    });
  }
  /// Every record of `kind` so far.
  std::vector<Record> all(const std::string& kind) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Record> out;
    for (const auto& record : records_) {
      if (record.kind == kind) out.push_back(record);
    }
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Record> records_;
};

/// A record matcher: the "address" field is `address`.
inline std::function<bool(const Record&)> from_address(const std::string& address) {
  return [address](const Record& r) { return r.fields.value("address", "") == address; };
}

inline launcher::coordinator::ServerOptions server_options(Journal& journal) {
  launcher::coordinator::ServerOptions options;
  options.listen_address = "127.0.0.1";
  options.token = kToken;
  options.record = journal.sink();
  return options;
}

inline net::ClientOptions client_options(int port, const std::string& peer, const std::string& node,
                                         const std::string& address,
                                         const std::string& token = kToken) {
  net::ClientOptions options;
  options.address = "127.0.0.1";
  options.port = port;
  options.token = token;
  options.job = "test-job";
  options.claim = net::PeerClaim{peer, node};
  options.bind_address = address;
  options.connect_timeout = 5000ms;
  return options;
}

/// A launcher for node-i that has sent its `join` (no checks).
inline std::unique_ptr<net::Client> join(int port, int i) {
  std::string node = "node-" + std::to_string(i);
  auto client =
      std::make_unique<net::Client>(client_options(port, "launcher", node, node_address(i)));
  client->send(Json{{"type", "join"}, {"node", node}, {"checks", Json::array()}, {"pid", 100 + i}});
  return client;
}

/// The next message of `type`, skipping others (progress, heartbeat); fails the test if
/// none comes within `timeout`.
inline Json await(net::Client& client, const std::string& type,
                  std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) FAIL("no '" << type << "' message within " << timeout.count() << " ms");
    auto message = client.receive(left);
    if (message && message->value("type", "") == type) return *message;
  }
}

/// True when the server closes `client` within `timeout` (messages before that are skipped).
inline bool closed_by_server(net::Client& client, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  try {
    while (std::chrono::steady_clock::now() < deadline) client.receive(50ms);
  } catch (const net::ConnectionError&) {
    return true;
  }
  return false;
}

/// A TCP connection driven by hand, byte by byte.
class RawConnection {
 public:
  explicit RawConnection(int port, const std::string& bind_address = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("socket failed");
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, bind_address.c_str(), &local.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
      throw std::runtime_error("bind failed");
    }
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&remote), sizeof remote) != 0) {
      throw std::runtime_error("connect failed");
    }
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  int fd() const { return fd_; }

  /// Sends all of `bytes`; false when the server already closed the connection.
  bool write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  /// Ends our side of the stream (the server sees end of file).
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

  /// The next frame; nullopt at end of stream or when `timeout` passed (see eof()).
  std::optional<net::Frame> read_frame(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    net::Frame frame;
    while (!decoder_.next(frame)) {
      if (!read_more(deadline)) return std::nullopt;
    }
    return frame;
  }
  /// Reads (and drops) until the server closes the connection; false if it does not within
  /// `timeout`.
  bool closed_by_server(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!eof_) {
      if (!read_more(deadline)) return eof_;
    }
    return true;
  }
  bool eof() const { return eof_; }

  /// Completes the handshake as `claim`; the channel for sealed frames afterwards.
  net::SecureChannel handshake(const net::PeerClaim& claim, const std::string& token = kToken) {
    net::ClientHandshake handshake(token, "test-job", claim);
    REQUIRE(write(handshake.hello()));
    while (!handshake.done()) {
      auto frame = read_frame();
      REQUIRE(frame);
      std::string reply = handshake.on_frame(*frame);
      if (!reply.empty()) REQUIRE(write(reply));
    }
    return handshake.channel();
  }

 private:
  bool read_more(std::chrono::steady_clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms || eof_) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buffer[65536];
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) {
      eof_ = true;  // end of stream or reset: either way the server is gone
      return false;
    }
    decoder_.feed(buffer, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  net::FrameDecoder decoder_;
  bool eof_ = false;
};

/// A raw frame header: `length`, then version, kind, reserved and sequence number 0.
inline std::string frame_header(std::uint32_t length, std::uint8_t version, std::uint8_t kind) {
  std::string header(net::kFrameHeaderSize, '\0');
  for (int i = 0; i < 4; ++i) header[i] = static_cast<char>((length >> (24 - 8 * i)) & 0xff);
  header[4] = static_cast<char>(version);
  header[5] = static_cast<char>(kind);
  return header;
}

/// The reason of a reject frame.
inline std::string reject_reason(const net::Frame& frame) {
  REQUIRE(frame.kind == net::FrameKind::Reject);
  return Json::parse(frame.body).at("reason").get<std::string>();
}

}  // namespace pai::testing
