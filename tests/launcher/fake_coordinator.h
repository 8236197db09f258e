// A scripted coordinator for tests of the control clients (`pai-launch status|stop|start|run|
// kill|logs`, `pai-launch rsh`): it listens on the loopback, authenticates one connection as
// the real coordinator does (net::ServerHandshake), then runs the test's script, which reads
// the client's requests and answers them by hand. What the script throws (a wrong request)
// is rethrown by finish() on the test's thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "launcher/net/auth.h"
#include "launcher/net/frame.h"
#include "launcher/net/message.h"

namespace pai::testing {

/// The server's end of one authenticated connection.
class FakePeer {
 public:
  explicit FakePeer(int fd) : fd_(fd) {}

  /// Runs the server's side of the handshake for `job` and `token`.
  void handshake(const std::string& job, const std::string& token) {
    net::ServerHandshake handshake(token, job);
    while (!handshake.done()) {
      net::Frame frame = read_frame();
      try {
        write(handshake.on_frame(frame));
      } catch (const net::ProtocolError& e) {
        write(net::ServerHandshake::reject(e.what()));
        throw;
      }
    }
    claim_ = handshake.claim();
    channel_.emplace(std::move(handshake.channel()));
  }

  const net::PeerClaim& claim() const { return claim_; }

  /// The next message from the client; throws when it closed or sent nothing for 10 s.
  nlohmann::json receive() { return channel_->open(read_frame()); }
  /// The next message, which must be of `type`.
  nlohmann::json expect(const std::string& type) {
    nlohmann::json message = receive();
    if (message.value("type", "") != type) {
      throw std::runtime_error("fake coordinator: expected " + type + ", got " + message.dump());
    }
    return message;
  }
  void send(const nlohmann::json& message) { write(channel_->seal(message)); }
  /// Waits (10 s at most) until the client closes its end; true when it did.
  bool wait_for_close() {
    try {
      for (;;) read_frame();
    } catch (const std::exception&) {
      return eof_;
    }
  }

 private:
  void write(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("fake coordinator: send failed");
      done += static_cast<std::size_t>(n);
    }
  }

  net::Frame read_frame() {
    net::Frame frame;
    while (!decoder_.next(frame)) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 10000) != 1) throw std::runtime_error("fake coordinator: nothing for 10 s");
      char buffer[64 * 1024];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        eof_ = true;
        throw std::runtime_error("fake coordinator: the client closed the connection");
      }
      decoder_.feed(buffer, static_cast<std::size_t>(n));
    }
    return frame;
  }

  int fd_;
  net::FrameDecoder decoder_;
  net::PeerClaim claim_;
  std::optional<net::SecureChannel> channel_;
  bool eof_ = false;
};

/// A coordinator of job `job` (token `token`) on 127.0.0.1 that serves one connection with
/// `script` in a thread.
class FakeCoordinator {
 public:
  FakeCoordinator(std::string job, std::string token, std::function<void(FakePeer&)> script) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), size) == 0);
    REQUIRE(::listen(listen_fd_, 4) == 0);
    REQUIRE(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread(
        [this, job = std::move(job), token = std::move(token), script = std::move(script)] {
          int fd = -1;
          try {
            pollfd p{listen_fd_, POLLIN, 0};
            if (::poll(&p, 1, 10000) != 1) throw std::runtime_error("fake coordinator: no client");
            fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) throw std::runtime_error("fake coordinator: accept failed");
            FakePeer peer(fd);
            peer.handshake(job, token);
            claim_ = peer.claim();
            script(peer);
          } catch (...) {
            error_ = std::current_exception();
          }
          if (fd >= 0) ::close(fd);
        });
  }
  ~FakeCoordinator() {
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
  }
  FakeCoordinator(const FakeCoordinator&) = delete;
  FakeCoordinator& operator=(const FakeCoordinator&) = delete;

  int port() const { return port_; }
  /// "127.0.0.1:PORT".
  std::string endpoint() const { return "127.0.0.1:" + std::to_string(port_); }
  /// Waits for the script to end; rethrows what it threw. The client's claim.
  net::PeerClaim finish() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return claim_;
  }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::exception_ptr error_;
  net::PeerClaim claim_;
};

/// A loopback port nothing listens on (bound, then released).
inline int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), size);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

/// Base64 of `text`, as data fields carry bytes.
inline std::string b64(const std::string& text) { return net::base64_encode(text); }

}  // namespace pai::testing
