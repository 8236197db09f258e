#include "launcher/node/node_link.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "launcher/net/auth.h"

namespace node_link_test {

using pai::launcher::EventLoop;
using pai::launcher::NodeLink;
using Clock = std::chrono::steady_clock;

namespace {

// Options for a coordinator nobody serves: 127.230.0.1, a port nothing listens on.
pai::net::ClientOptions nobody() {
  pai::net::ClientOptions options;
  options.address = "127.230.0.1";
  options.port = 9;
  options.token = "any-token-0123456789";
  options.job = "link";
  options.claim = {"launcher", "node-2"};
  return options;
}

// connect()'s error, or "connected".
std::string connect_error(NodeLink& link, Clock::duration limit) {
  try {
    link.connect(Clock::now() + limit, {});
  } catch (const pai::net::ConnectionError& e) {
    return e.what();
  }
  return "connected";
}

// A coordinator that refuses every launcher with `reason` (as an ended coordinator does), on
// 127.230.0.2 and a port of its own, until destroyed; counts the refusals.
class RefusingCoordinator {
 public:
  explicit RefusingCoordinator(std::string reason) : reason_(std::move(reason)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    ::inet_pton(AF_INET, "127.230.0.2", &sin.sin_addr);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    socklen_t length = sizeof sin;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sin), &length);
    port_ = ntohs(sin.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int peer = ::accept(fd_, nullptr, nullptr);
        if (peer < 0) return;
        char hello[4096];
        (void)::read(peer, hello, sizeof hello);
        const std::string reject = pai::net::ServerHandshake::reject(reason_);
        (void)::write(peer, reject.data(), reject.size());
        ::close(peer);
        ++refused;
      }
    });
  }
  ~RefusingCoordinator() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::atomic<int> refused{0};

 private:
  std::string reason_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

pai::net::ClientOptions at(int port) {
  pai::net::ClientOptions options = nobody();
  options.address = "127.230.0.2";
  options.port = port;
  return options;
}

}  // namespace

TEST_CASE("a link that may give up retries a coordinator's reject - not a wrong token") {
  EventLoop loop;
  {
    // An ended coordinator's answer on a new leader's address: tried again until the leader
    // moved (here: after three refusals).
    RefusingCoordinator ended("the job ended: succeeded (job link is over)");
    NodeLink link(at(ended.port()), loop, [&]() -> std::string {
      return ended.refused >= 3 ? "etcd names node-3 the coordinator now" : "";
    });
    const std::string error = connect_error(link, std::chrono::seconds(20));
    CHECK(error == "127.230.0.2:" + std::to_string(ended.port()) +
                       ": etcd names node-3 the coordinator now");
    CHECK(ended.refused >= 3);
  }
  {
    // Without coordinator.ha a refusal is final at once.
    RefusingCoordinator ended("the job ended: succeeded (job link is over)");
    NodeLink link(at(ended.port()), loop);
    CHECK_THAT(connect_error(link, std::chrono::seconds(20)),
               Catch::Contains("rejected by the coordinator: the job ended: succeeded"));
    CHECK(ended.refused == 1);
  }
  {
    // A wrong job token is never retried.
    RefusingCoordinator wrong("authentication failed: the client does not know the job token");
    NodeLink link(at(wrong.port()), loop, [] { return std::string(); });
    const auto t = Clock::now();
    CHECK_THAT(connect_error(link, std::chrono::seconds(20)), Catch::Contains("job token"));
    CHECK(Clock::now() - t < std::chrono::seconds(5));
  }
}

TEST_CASE("a link stops trying a coordinator when it is given a reason to") {
  EventLoop loop;
  int asked = 0;
  NodeLink link(nobody(), loop, [&]() -> std::string {
    return ++asked < 3 ? "" : "etcd names node-3 the coordinator now";
  });
  const auto t = Clock::now();
  const std::string error = connect_error(link, std::chrono::seconds(20));
  CHECK(error == "127.230.0.1:9: etcd names node-3 the coordinator now");
  CHECK(asked == 3);
  CHECK(Clock::now() - t < std::chrono::seconds(5));
}

TEST_CASE("a link without a reason to give up tries until its deadline") {
  EventLoop loop;
  NodeLink link(nobody(), loop, [] { return std::string(); });
  const auto t = Clock::now();
  const std::string error = connect_error(link, std::chrono::milliseconds(600));
  CHECK_THAT(error, Catch::Contains("cannot connect"));
  CHECK(Clock::now() - t >= std::chrono::milliseconds(600));
}

}  // namespace node_link_test
