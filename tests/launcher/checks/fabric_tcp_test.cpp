#include "launcher/checks/fabric_tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>

namespace fabric_tcp_test {

using namespace pai::checks;
using namespace std::chrono_literals;

FabricTcpSettings quick_settings(const std::string& key = "pair-0-1-round-1") {
  FabricTcpSettings s;
  s.streams = 4;
  s.duration = 200ms;
  s.pings = 5;
  s.timeout = 5s;
  s.key = key;
  return s;
}

/// A raw loopback socket listening on a kernel-chosen port; closed with the fixture.
struct RawListener {
  int fd = -1;
  int port = 0;
  RawListener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0);
    REQUIRE(::listen(fd, 16) == 0);
    socklen_t size = sizeof at;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&at), &size);
    port = ntohs(at.sin_port);
  }
  ~RawListener() {
    if (fd >= 0) ::close(fd);
  }
};

/// A loopback port nothing listens on (bound, then closed).
int closed_port() {
  RawListener l;
  const int port = l.port;
  ::close(l.fd);
  l.fd = -1;
  return port;
}

std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const FabricTcpError& e) {
    return e.what();
  }
  return "no error";
}

/// The greeting a partner sends (fabric_tcp.h): magic, kind, stream index, zeros, key.
std::string greeting_of(char kind, int index, const std::string& key) {
  std::string g = "PAIFAB01";
  g += kind;
  g += static_cast<char>(index);
  g.append(6, '\0');
  g += key;
  g.append(32 - key.size(), '\0');
  return g;
}

/// A loopback client connection to `port`; -1 when it fails.
int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  at.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool write_text(int fd, const std::string& text) {
  return ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

/// Reads exactly `size` bytes; "" when the connection ends first.
std::string read_exactly(int fd, std::size_t size) {
  std::string out(size, '\0');
  std::size_t have = 0;
  while (have < size) {
    const ssize_t n = ::read(fd, out.data() + have, size - have);
    if (n <= 0) return {};
    have += static_cast<std::size_t>(n);
  }
  return out;
}

TEST_CASE("fabric tcp: a pair on loopback measures both directions and the latency") {
  FabricTcpListener listener("127.0.0.1", 0, 0);
  REQUIRE(listener.port() > 0);
  auto served = std::async(std::launch::async, [&] { return listener.serve(quick_settings()); });
  const FabricTcpFigures mine = measure_fabric_tcp("127.0.0.1", listener.port(), quick_settings());
  const FabricTcpFigures theirs = served.get();
  CHECK(mine.bytes_in > 0);
  CHECK(mine.bytes_out > 0);
  CHECK(mine.in_gbps > 0.1);
  CHECK(mine.out_gbps > 0.1);
  // Each side's "in" is the other's "out": one exchange, seen from both ends.
  CHECK(mine.bytes_out == theirs.bytes_in);
  CHECK(mine.bytes_in == theirs.bytes_out);
  CHECK(mine.latency_us > 0);
  CHECK(mine.latency_us < 1e6);
  CHECK(theirs.latency_us == Approx(mine.latency_us).epsilon(0.01));
  CHECK(mine.gbps() == std::min(mine.in_gbps, mine.out_gbps));
}

TEST_CASE("fabric tcp: the byte cap bounds what each stream sends") {
  FabricTcpSettings s = quick_settings();
  s.streams = 2;
  s.max_bytes = 1000;
  FabricTcpListener listener("127.0.0.1", 0, 0);
  auto served = std::async(std::launch::async, [&] { return listener.serve(s); });
  const FabricTcpFigures mine = measure_fabric_tcp("127.0.0.1", listener.port(), s);
  CHECK(served.get().bytes_in == 2000);
  CHECK(mine.bytes_in == 2000);
}

TEST_CASE("fabric tcp: a refused connect is a clean error naming the address") {
  const int port = closed_port();
  FabricTcpSettings s = quick_settings();
  CHECK(error_of([&] { measure_fabric_tcp("127.0.0.1", port, s); }) ==
        "connect to 127.0.0.1:" + std::to_string(port) + ": Connection refused");
}

TEST_CASE("fabric tcp: a listener nobody connects to times out saying what it waited for") {
  FabricTcpSettings s = quick_settings();
  s.timeout = 200ms;
  FabricTcpListener listener("127.0.0.1", 0, 0);
  const auto started = std::chrono::steady_clock::now();
  CHECK(error_of([&] { listener.serve(s); }) ==
        "timed out after 200ms waiting for the partner to connect (0 of 4 data streams, no "
        "control connection)");
  CHECK(std::chrono::steady_clock::now() - started < 2s);
}

TEST_CASE("fabric tcp: a partner that never answers times out") {
  RawListener silent;  // accepts into its backlog, never reads or writes
  FabricTcpSettings s = quick_settings();
  s.timeout = 300ms;
  CHECK(error_of([&] { measure_fabric_tcp("127.0.0.1", silent.port, s); }) ==
        "127.0.0.1:" + std::to_string(silent.port) +
            ": timed out after 300ms waiting for a ping's echo");
}

TEST_CASE("fabric tcp: a partner that answers garbage is a clean error") {
  RawListener fake;
  std::thread server([&] {
    const int fd = ::accept(fake.fd, nullptr, nullptr);
    if (fd < 0) return;
    const char reply[] = "HTTP/1.0 400 Bad Request\r\n\r\n";
    (void)::write(fd, reply, sizeof reply - 1);
    std::this_thread::sleep_for(300ms);
    ::close(fd);
  });
  FabricTcpSettings s = quick_settings();
  s.streams = 1;
  const std::string error = error_of([&] { measure_fabric_tcp("127.0.0.1", fake.port, s); });
  server.join();
  CHECK(error ==
        "127.0.0.1:" + std::to_string(fake.port) + ": the partner answered a ping with garbage");
}

TEST_CASE("fabric tcp: connections without the pair's greeting are closed and do not count") {
  FabricTcpListener listener("127.0.0.1", 0, 0);
  auto served = std::async(std::launch::async, [&] { return listener.serve(quick_settings()); });
  {
    // A stranger with the wrong greeting, then the real partner.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    at.sin_port = htons(static_cast<std::uint16_t>(listener.port()));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0);
    const std::string junk(48, 'x');
    REQUIRE(::write(fd, junk.data(), junk.size()) == 48);
    ::close(fd);
  }
  const FabricTcpFigures mine = measure_fabric_tcp("127.0.0.1", listener.port(), quick_settings());
  CHECK(served.get().bytes_in == mine.bytes_out);
  CHECK(mine.bytes_out > 0);
}

TEST_CASE("fabric tcp: a partner with another pair's key is not accepted") {
  FabricTcpSettings listening = quick_settings("round-1-pair-0");
  listening.timeout = 400ms;
  FabricTcpSettings connecting = quick_settings("round-1-pair-1");
  connecting.timeout = 400ms;
  FabricTcpListener listener("127.0.0.1", 0, 0);
  auto served =
      std::async(std::launch::async, [&] { return error_of([&] { listener.serve(listening); }); });
  const std::string connector =
      error_of([&] { measure_fabric_tcp("127.0.0.1", listener.port(), connecting); });
  CHECK(served.get() ==
        "timed out after 400ms waiting for the partner to connect (0 of 4 data streams, no "
        "control connection, 5 connection(s) without the pair's greeting closed)");
  // The listener closed its connections after their greetings: closed or reset, by timing.
  CHECK_THAT(connector, Catch::StartsWith("127.0.0.1:" + std::to_string(listener.port()) + ": ") &&
                            Catch::Contains("a ping's echo"));
}

TEST_CASE("fabric tcp: the listener takes the highest free port of its range") {
  FabricTcpListener first("127.0.0.1", 0, 0);
  const int taken = first.port();
  // The range ends at a taken port: the next one down is used.
  if (taken > 1024) {
    FabricTcpListener second("127.0.0.1", taken - 1, taken);
    CHECK(second.port() == taken - 1);
  }
  CHECK(error_of([&] { FabricTcpListener third("127.0.0.1", taken, taken); }) ==
        "no free port to listen on in " + std::to_string(taken) + "-" + std::to_string(taken) +
            " at 127.0.0.1: Address already in use");
}

TEST_CASE("fabric tcp: bad settings and addresses are refused before any connect") {
  FabricTcpSettings s = quick_settings();
  s.streams = 0;
  CHECK(error_of([&] { measure_fabric_tcp("127.0.0.1", 1, s); }) == "streams must be 1..64, not 0");
  s = quick_settings(std::string(33, 'k'));
  CHECK(error_of([&] { measure_fabric_tcp("127.0.0.1", 1, s); }) ==
        "the pair key is longer than 32 bytes");
  CHECK(error_of([&] { measure_fabric_tcp("node-1", 1, quick_settings()); }) ==
        "\"node-1\" is not a numeric IPv4 or IPv6 address");
}

TEST_CASE("fabric tcp: a partner that greets and then sends garbage fails the listener cleanly") {
  FabricTcpSettings s = quick_settings("k");
  s.streams = 1;
  FabricTcpListener listener("127.0.0.1", 0, 0);
  auto served =
      std::async(std::launch::async, [&] { return error_of([&] { listener.serve(s); }); });
  const int control = connect_loopback(listener.port());
  const int data = connect_loopback(listener.port());
  REQUIRE(control >= 0);
  REQUIRE(data >= 0);
  CHECK(write_text(control, greeting_of('C', 0, "k")));
  CHECK(write_text(data, greeting_of('D', 0, "k")));
  CHECK(write_text(control, "XXXXXXXXX"));
  CHECK(served.get() == "the partner sent garbage on the control connection");
  ::close(control);
  ::close(data);
}

TEST_CASE("fabric tcp: a listener that reports garbage fails the connector cleanly") {
  RawListener fake;
  std::thread server([&] {
    // Plays a listener up to its report: greetings, echoed pings, the data exchange.
    const int control = ::accept(fake.fd, nullptr, nullptr);
    const int data = ::accept(fake.fd, nullptr, nullptr);
    if (control < 0 || data < 0) return;
    read_exactly(control, 48);
    read_exactly(data, 48);
    for (;;) {
      const std::string ping = read_exactly(control, 9);
      if (ping.empty() || ping[0] != 'P') break;
      write_text(control, ping);
    }
    ::shutdown(data, SHUT_WR);
    char drain[65536];
    while (::read(data, drain, sizeof drain) > 0) {
    }
    write_text(control, std::string(25, 'Z'));
    read_exactly(control, 25);
    ::close(data);
    ::close(control);
  });
  FabricTcpSettings s = quick_settings("k");
  s.streams = 1;
  const std::string error = error_of([&] { measure_fabric_tcp("127.0.0.1", fake.port, s); });
  server.join();
  CHECK(error == "127.0.0.1:" + std::to_string(fake.port) +
                     ": the partner sent garbage instead of its report");
}

}  // namespace fabric_tcp_test
