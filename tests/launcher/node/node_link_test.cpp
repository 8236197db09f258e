#include "launcher/node/node_link.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

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

}  // namespace

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
