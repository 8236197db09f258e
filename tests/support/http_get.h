// A minimal HTTP client for tests of the metrics endpoint and of the Prometheus server that
// scrapes it: plain sockets, one request per connection, everything read until the peer
// closes.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace pai::testing {

/// A socket connected to IPv4 `address`:`port`, or -1 when the connection is refused.
inline int connect_tcp(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  ::inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Everything the peer of `fd` sends until it closes (or resets); "TIMEOUT" appended when
/// `limit` passes first.
inline std::string read_until_closed(int fd,
                                     std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return out + "TIMEOUT";
    }
    char buffer[65536];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return out;
    out.append(buffer, static_cast<std::size_t>(n));
  }
}

/// Sends `request` to `address`:`port` and returns the whole reply; "" when nobody listens.
inline std::string http_exchange(const std::string& address, int port, const std::string& request) {
  const int fd = connect_tcp(address, port);
  if (fd < 0) return "";
  std::string reply;
  if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    reply = read_until_closed(fd);
  }
  ::close(fd);
  return reply;
}

/// The reply to an HTTP/1.0 GET of `target`.
inline std::string http_get(const std::string& address, int port, const std::string& target) {
  return http_exchange(address, port,
                       "GET " + target + " HTTP/1.0\r\nHost: " + address + "\r\n\r\n");
}

/// The body of an HTTP reply ("" without one).
inline std::string http_body(const std::string& reply) {
  const std::size_t at = reply.find("\r\n\r\n");
  return at == std::string::npos ? "" : reply.substr(at + 4);
}

/// The status line of an HTTP reply.
inline std::string http_status(const std::string& reply) {
  return reply.substr(0, reply.find("\r\n"));
}

}  // namespace pai::testing
