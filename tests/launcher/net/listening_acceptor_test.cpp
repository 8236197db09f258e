#include "launcher/net/listening_acceptor.h"

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>

#include "support/http_get.h"

namespace listening_acceptor_test {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace pai::net;

TEST_CASE("listen_on binds a port of the system's choice, and it takes connections") {
  asio::io_context io;
  tcp::acceptor acceptor(io);
  const int port = listen_on(acceptor, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  CHECK(port > 0);
  CHECK(acceptor.local_endpoint().port() == port);
  const int client = pai::testing::connect_tcp("127.0.0.1", port);
  REQUIRE(client >= 0);
  tcp::socket accepted = acceptor.accept();
  CHECK(accepted.remote_endpoint().address().to_string() == "127.0.0.1");
  ::close(client);
}

TEST_CASE("listen_on a port another socket listens on throws address_in_use") {
  asio::io_context io;
  tcp::acceptor first(io);
  const int port = listen_on(first, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  tcp::acceptor second(io);
  try {
    listen_on(second, tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                    static_cast<unsigned short>(port)));
    FAIL("a second socket listened on the same port");
  } catch (const boost::system::system_error& e) {
    CHECK(e.code() == asio::error::address_in_use);
  }
}

TEST_CASE("after ECONNABORTED the next accept comes at once, after EMFILE 50 ms later") {
  asio::io_context io;
  asio::steady_timer retry(io);
  int accepts = 0;
  accept_again(asio::error::connection_aborted, retry, [&] { ++accepts; });
  CHECK(accepts == 1);

  const auto start = std::chrono::steady_clock::now();
  accept_again(asio::error::no_descriptors, retry, [&] { ++accepts; });
  CHECK(accepts == 1);
  io.run();
  CHECK(accepts == 2);
  CHECK(std::chrono::steady_clock::now() - start >= kAcceptRetry);
}

TEST_CASE("a retry whose wait is cancelled accepts no more") {
  asio::io_context io;
  asio::steady_timer retry(io);
  int accepts = 0;
  accept_again(asio::error::no_descriptors, retry, [&] { ++accepts; });
  retry.cancel();
  io.run();
  CHECK(accepts == 0);
}

}  // namespace listening_acceptor_test
