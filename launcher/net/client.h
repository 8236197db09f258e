// A blocking, authenticated connection to a coordinator: for `pai-launch status|stop|start|
// run|kill|logs`, `pai-launch rsh`, tests and benchmarks. Boost.Asio underneath.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "launcher/net/auth.h"

namespace pai::net {

/// Cannot connect, the handshake failed, the connection broke or timed out. what() is
/// "ADDRESS:PORT: REASON", e.g. "10.0.0.1:29400: cannot connect: Connection refused".
class ConnectionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Connecting or authenticating gave up because ClientOptions::stop_requested said so.
class Interrupted : public ConnectionError {
 public:
  Interrupted(const std::string& label, int signal)
      : ConnectionError(label + ": interrupted by signal " + std::to_string(signal)),
        signal_(signal) {}
  /// What stop_requested returned.
  int signal() const { return signal_; }

 private:
  int signal_;
};

struct ClientOptions {
  std::string address;  ///< numeric address or host name of the coordinator
  int port = 0;
  std::string token;  ///< the job token's text
  std::string job;    ///< the plan's job name
  PeerClaim claim;
  /// Local address to bind before connecting (so the coordinator sees the node's address);
  /// empty = any.
  std::string bind_address;
  /// Limit for connecting and authenticating together.
  std::chrono::milliseconds connect_timeout{5000};
  /// Limit for one send(); past it (the coordinator stopped reading) send() throws.
  std::chrono::milliseconds send_timeout{10000};
  /// Once connected: past this long with data sent and not acknowledged (the coordinator's
  /// host is down or the link cut), the kernel closes the connection (TCP_USER_TIMEOUT) and
  /// send() or receive() throws ("... acknowledged nothing for 5.0s ..."). Zero: the
  /// kernel's default, minutes of retransmissions.
  std::chrono::milliseconds unacknowledged_timeout{0};
  /// Asked every 100 ms while connecting and authenticating; a nonzero answer (a signal
  /// number) abandons the attempt with Interrupted. Empty = never.
  std::function<int()> stop_requested;
};

class Client {
 public:
  /// Connects and authenticates. Throws ConnectionError.
  explicit Client(const ClientOptions& options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void send(const nlohmann::json& message);
  /// The next message, or nullopt when `timeout` passed first. Throws ConnectionError when the
  /// connection closed (what(): "ADDRESS:PORT: the coordinator closed the connection") or a
  /// frame is bad.
  std::optional<nlohmann::json> receive(std::chrono::milliseconds timeout);
  /// The socket, for callers that poll it together with other descriptors (rsh's stdin).
  int native_handle() const;
  /// True when a complete message is already buffered (poll would not show it).
  bool has_buffered() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::net
