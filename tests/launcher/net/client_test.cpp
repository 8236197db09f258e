#include "launcher/net/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <thread>

namespace client_test {

using namespace pai::net;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "job-token";
const std::string kJob = "train";

// One TCP connection accepted by the test server, with blocking helpers.
struct Connection {
  int fd = -1;
  FrameDecoder decoder;

  void write(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("test server: send failed");
      done += static_cast<std::size_t>(n);
    }
  }
  // The next frame; throws at end of stream.
  Frame read() {
    Frame frame;
    while (!decoder.next(frame)) {
      char buffer[4096];
      ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) throw std::runtime_error("test server: connection closed");
      decoder.feed(buffer, static_cast<std::size_t>(n));
    }
    return frame;
  }
};

// A loopback server on an ephemeral port running `serve` for one connection in a thread.
// Errors in the thread are kept and rethrown by finish() on the test's thread.
class TestServer {
 public:
  explicit TestServer(std::function<void(Connection&)> serve) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), size) == 0);
    REQUIRE(::listen(listen_fd_, 4) == 0);
    REQUIRE(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this, serve = std::move(serve)] {
      Connection connection;
      try {
        sockaddr_in peer{};
        socklen_t peer_size = sizeof peer;
        connection.fd = ::accept(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_size);
        if (connection.fd < 0) throw std::runtime_error("test server: accept failed");
        char text[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
        peer_address_ = text;
        serve(connection);
      } catch (...) {
        error_ = std::current_exception();
      }
      if (connection.fd >= 0) ::close(connection.fd);
    });
  }
  ~TestServer() {
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  // Waits for the server thread; rethrows what it threw. Returns the client's address.
  std::string finish() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return peer_address_;
  }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::exception_ptr error_;
  std::string peer_address_;
};

// Runs the server's side of the handshake; the channel for what follows.
SecureChannel accept_handshake(Connection& c, const std::string& token = kToken) {
  ServerHandshake handshake(token, kJob);
  while (!handshake.done()) {
    Frame frame = c.read();
    try {
      c.write(handshake.on_frame(frame));
    } catch (const ProtocolError& e) {
      c.write(ServerHandshake::reject(e.what()));
      throw;
    }
  }
  if (handshake.claim().peer != "control" || handshake.claim().node != "laptop") {
    throw std::runtime_error("test server: unexpected claim");
  }
  return handshake.channel();
}

ClientOptions options_for(int port) {
  ClientOptions options;
  options.address = "127.0.0.1";
  options.port = port;
  options.token = kToken;
  options.job = kJob;
  options.claim = PeerClaim{"control", "laptop"};
  options.connect_timeout = 5000ms;
  return options;
}

std::string connect_error(const ClientOptions& options) {
  try {
    Client client(options);
  } catch (const ConnectionError& e) {
    return e.what();
  }
  FAIL("the client connected where it should have failed");
  return {};
}

// Blocks the server until the client closes its end.
void wait_for_close(Connection& c) {
  char byte;
  while (::recv(c.fd, &byte, 1, 0) > 0) {
  }
}

}  // namespace

TEST_CASE("the client connects and authenticates and exchanges messages") {
  TestServer server([](Connection& c) {
    SecureChannel channel = accept_handshake(c);
    json request = channel.open(c.read());
    // Two answers in one write: the second is buffered when the first is received.
    std::string both = channel.seal({{"type", "echo"}, {"n", request["n"]}});
    // Its own statement: seal() numbers frames, and the operands of + are unsequenced.
    both += channel.seal({{"type", "done"}});
    c.write(both);
    wait_for_close(c);
  });
  ClientOptions options = options_for(server.port());
  options.bind_address = "127.0.0.1";
  {
    Client client(options);
    CHECK(client.native_handle() >= 0);
    client.send({{"type", "ping"}, {"n", 42}});
    std::optional<json> echo = client.receive(5s);
    REQUIRE(echo);
    CHECK(*echo == json{{"type", "echo"}, {"n", 42}});
    CHECK(client.has_buffered());
    std::optional<json> done = client.receive(0ms);
    REQUIRE(done);
    CHECK((*done)["type"] == "done");
    CHECK_FALSE(client.has_buffered());
  }
  CHECK(server.finish() == "127.0.0.1");
}

// The socket's TCP_USER_TIMEOUT, in ms.
unsigned user_timeout(const Client& client) {
  unsigned ms = 0;
  socklen_t size = sizeof ms;
  REQUIRE(::getsockopt(client.native_handle(), IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, &size) == 0);
  return ms;
}

TEST_CASE("unacknowledged_timeout bounds how long sent data may go unacknowledged") {
  TestServer server([](Connection& c) {
    accept_handshake(c);
    wait_for_close(c);
  });
  ClientOptions options = options_for(server.port());
  SECTION("set") {
    options.unacknowledged_timeout = 3500ms;
    Client client(options);
    CHECK(user_timeout(client) == 3500);
  }
  SECTION("left to the kernel") {
    Client client(options);
    CHECK(user_timeout(client) == 0);
  }
  server.finish();
}

TEST_CASE("receive returns nothing when the timeout passes first") {
  TestServer server([](Connection& c) {
    accept_handshake(c);
    wait_for_close(c);
  });
  {
    Client client(options_for(server.port()));
    auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(client.receive(150ms));
    CHECK(std::chrono::steady_clock::now() - start >= 150ms);
    CHECK_FALSE(client.receive(0ms));
  }
  server.finish();
}

TEST_CASE("the coordinator closing the connection is a ConnectionError") {
  TestServer server([](Connection& c) { accept_handshake(c); });
  Client client(options_for(server.port()));
  server.finish();
  std::string label = "127.0.0.1:" + std::to_string(server.port());
  CHECK_THROWS_WITH(client.receive(5s), label + ": the coordinator closed the connection");
}

TEST_CASE("a bad frame after the handshake is a ConnectionError") {
  TestServer server([](Connection& c) {
    accept_handshake(c);
    c.write(std::string(16, '\0'));  // version 0
    wait_for_close(c);
  });
  std::string label = "127.0.0.1:" + std::to_string(server.port());
  {
    Client client(options_for(server.port()));
    CHECK_THROWS_WITH(client.receive(5s),
                      label +
                          ": bad frame from the coordinator: unsupported protocol version 0 "
                          "(expected 1)");
  }
  server.finish();
}

TEST_CASE("a replayed sealed frame from the coordinator is a ConnectionError") {
  TestServer server([](Connection& c) {
    SecureChannel channel = accept_handshake(c);
    std::string frame = channel.seal({{"type", "heartbeat"}});
    c.write(frame + frame);
    wait_for_close(c);
  });
  std::string label = "127.0.0.1:" + std::to_string(server.port());
  {
    Client client(options_for(server.port()));
    CHECK(client.receive(5s));
    CHECK_THROWS_WITH(client.receive(5s),
                      label +
                          ": bad message from the coordinator: sealed frame with sequence "
                          "number 1, expected 2 (replayed, reordered or lost frame)");
  }
  server.finish();
}

TEST_CASE("a refused connection names the address and the reason") {
  // A port that was just free: bound, never listened on, closed.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0);
  int port = ntohs(address.sin_port);
  ::close(fd);
  CHECK(connect_error(options_for(port)) ==
        "127.0.0.1:" + std::to_string(port) + ": cannot connect: Connection refused");
}

TEST_CASE("a bad local bind address is a ConnectionError") {
  ClientOptions options = options_for(1);
  options.bind_address = "not-an-address";
  CHECK_THROWS_WITH(Client(options),
                    Catch::Matchers::StartsWith("127.0.0.1:1: invalid local bind address "
                                                "\"not-an-address\": "));
}

TEST_CASE("a coordinator that does not know the token is refused") {
  TestServer server([](Connection& c) { accept_handshake(c, "other token"); });
  std::string label = "127.0.0.1:" + std::to_string(server.port());
  CHECK(connect_error(options_for(server.port())) ==
        label + ": handshake failed: the coordinator does not know the job token");
  // The client hung up instead of sending a proof.
  CHECK_THROWS_WITH(server.finish(), "test server: connection closed");
}

TEST_CASE("a client with the wrong job is rejected with the coordinator's reason") {
  TestServer server([](Connection& c) { accept_handshake(c); });
  ClientOptions options = options_for(server.port());
  options.job = "other";
  CHECK(connect_error(options) == "127.0.0.1:" + std::to_string(server.port()) +
                                      ": handshake failed: rejected by the coordinator: hello: "
                                      "job \"other\" is not this coordinator's job \"train\"");
  CHECK_THROWS_WITH(server.finish(),
                    "hello: job \"other\" is not this coordinator's job \"train\"");
}

TEST_CASE("a coordinator that never answers the hello times the handshake out") {
  TestServer server([](Connection& c) {
    c.read();  // the hello, never answered
    wait_for_close(c);
  });
  ClientOptions options = options_for(server.port());
  options.connect_timeout = 200ms;
  auto start = std::chrono::steady_clock::now();
  CHECK(connect_error(options) ==
        "127.0.0.1:" + std::to_string(server.port()) + ": handshake timed out after 200 ms");
  CHECK(std::chrono::steady_clock::now() - start >= 200ms);
  server.finish();
}

}  // namespace client_test
