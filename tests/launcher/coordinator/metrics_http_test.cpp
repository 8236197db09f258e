#include "launcher/coordinator/metrics_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/http_get.h"

namespace metrics_http_test {

using namespace pai::launcher::coordinator;
using namespace std::chrono_literals;

namespace {

const std::function<std::string()> kRender = [] { return std::string("pai_up 1\n"); };

std::string answer_text(const std::string& head) {
  return http_response(answer_request(head, kRender, "text/plain; version=0.0.4"));
}

// A server on its own loop thread, rendering "pai_up 1" and counting renders.
struct Served {
  explicit Served(MetricsHttpOptions options = {}) {
    options.address = "127.0.0.1";
    options.port = 0;
    server = std::make_unique<MetricsHttpServer>(
        io, options,
        [this] {
          ++renders;
          return std::string("pai_up 1\n");
        },
        "text/plain; version=0.0.4");
    thread = std::thread([this] { io.run(); });
  }
  ~Served() {
    io.stop();
    thread.join();
    server.reset();
  }

  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::unique_ptr<MetricsHttpServer> server;
  std::atomic<int> renders{0};
  std::thread thread;
};

int connect_to(int port) {
  const int fd = pai::testing::connect_tcp("127.0.0.1", port);
  if (fd < 0) throw std::runtime_error("cannot connect");
  return fd;
}

std::string exchange(int port, const std::string& request) {
  return pai::testing::http_exchange("127.0.0.1", port, request);
}

std::string status_line(const std::string& reply) { return pai::testing::http_status(reply); }

}  // namespace

TEST_CASE("GET and HEAD /metrics are answered - with any query string") {
  CHECK(answer_text("GET /metrics HTTP/1.1\r\nHost: x") ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 9\r\n"
        "Connection: close\r\n\r\npai_up 1\n");
  CHECK(answer_text("GET /metrics?name[]=pai_up HTTP/1.0") ==
        answer_text("GET /metrics HTTP/1.1\r\nHost: x"));
  CHECK(answer_text("HEAD /metrics HTTP/1.1\r\n") ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 9\r\n"
        "Connection: close\r\n\r\n");
}

TEST_CASE("other paths get 404 - other methods 405 - bad request lines 400") {
  CHECK(answer_text("GET / HTTP/1.1") ==
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Length: 39\r\nConnection: close\r\n\r\nnot found: the metrics are at /metrics\n");
  CHECK(status_line(answer_text("GET /metrics/x HTTP/1.1")) == "HTTP/1.1 404 Not Found");
  CHECK(status_line(answer_text("GET /metricsx HTTP/1.1")) == "HTTP/1.1 404 Not Found");
  const std::string post = answer_text("POST /metrics HTTP/1.1\r\nContent-Length: 3");
  CHECK(status_line(post) == "HTTP/1.1 405 Method Not Allowed");
  CHECK(post.find("\r\nAllow: GET, HEAD\r\n") != std::string::npos);
  for (const char* bad : {"", "GET", "GET /metrics", "GET /metrics HTTP/2.0",
                          "GET  /metrics HTTP/1.1", "GET /metrics HTTP/1.1 extra",
                          "GET metrics HTTP/1.1", "G(T /metrics HTTP/1.1", "\x01\x02\x03"}) {
    INFO(bad);
    CHECK(status_line(answer_text(bad)) == "HTTP/1.1 400 Bad Request");
  }
}

TEST_CASE("a renderer that throws is a 500 - not a crash") {
  const auto answer = answer_request(
      "GET /metrics HTTP/1.1", []() -> std::string { throw std::runtime_error("boom"); },
      "text/plain");
  CHECK(answer.status == 500);
  CHECK(answer.body == "cannot render the metrics: boom\n");
}

TEST_CASE("the server answers over TCP - one request per connection") {
  Served s;
  const std::string reply = exchange(s.server->port(), "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
  CHECK(reply ==
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 9\r\n"
        "Connection: close\r\n\r\npai_up 1\n");
  CHECK(status_line(exchange(s.server->port(), "GET /nope HTTP/1.1\r\n\r\n")) ==
        "HTTP/1.1 404 Not Found");
  CHECK(status_line(exchange(s.server->port(), "DELETE /metrics HTTP/1.1\r\n\r\n")) ==
        "HTTP/1.1 405 Method Not Allowed");
  CHECK(status_line(exchange(s.server->port(), "hello\n\n")) == "HTTP/1.1 400 Bad Request");
  CHECK(s.renders == 1);
}

TEST_CASE("a request head split over many writes is assembled") {
  Served s;
  const int fd = connect_to(s.server->port());
  for (const char* part : {"GET /met", "rics HTTP/1.1\r", "\nHost: t\r\n", "\r\n"}) {
    REQUIRE(::write(fd, part, std::strlen(part)) > 0);
    std::this_thread::sleep_for(20ms);
  }
  CHECK(status_line(pai::testing::read_until_closed(fd)) == "HTTP/1.1 200 OK");
  ::close(fd);
}

TEST_CASE("an oversized request gets 431 and is closed") {
  MetricsHttpOptions options;
  options.max_request_bytes = 1024;
  Served s(options);
  const std::string big = "GET /metrics HTTP/1.1\r\nX-Fill: " + std::string(4000, 'a');
  const std::string reply = exchange(s.server->port(), big);
  CHECK(status_line(reply) == "HTTP/1.1 431 Request Header Fields Too Large");
  CHECK(reply.find("TIMEOUT") == std::string::npos);
  // A complete head past the limit is refused too.
  CHECK(status_line(exchange(s.server->port(), big + "\r\n\r\n")) ==
        "HTTP/1.1 431 Request Header Fields Too Large");
  CHECK(s.renders == 0);
}

TEST_CASE("a client that sends nothing is closed after the timeout") {
  MetricsHttpOptions options;
  options.timeout = 200ms;
  Served s(options);
  const int fd = connect_to(s.server->port());
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(pai::testing::read_until_closed(fd, 5s).empty());  // closed, with no answer
  CHECK(std::chrono::steady_clock::now() - t0 < 3s);
  ::close(fd);
}

TEST_CASE("a new connection evicts the oldest of its address - the others are still served") {
  MetricsHttpOptions options;
  options.max_per_address = 2;
  Served s(options);
  const int idle1 = connect_to(s.server->port());
  std::this_thread::sleep_for(50ms);  // accepted first: the oldest
  const int idle2 = connect_to(s.server->port());
  std::this_thread::sleep_for(50ms);
  const std::string request = "GET /metrics HTTP/1.1\r\n\r\n";
  CHECK(status_line(exchange(s.server->port(), request)) == "HTTP/1.1 200 OK");
  CHECK(pai::testing::read_until_closed(idle1, 2s).empty());  // evicted: closed, no answer
  REQUIRE(::write(idle2, request.data(), request.size()) > 0);
  CHECK(status_line(pai::testing::read_until_closed(idle2)) == "HTTP/1.1 200 OK");
  ::close(idle1);
  ::close(idle2);
}

TEST_CASE("200 slow connections from the scraper's own address keep out no scrape") {
  Served s;
  std::vector<int> slow;
  for (int i = 0; i < 200; ++i) {
    const int fd = connect_to(s.server->port());
    REQUIRE(::write(fd, "GET /metr", 9) == 9);  // a request head that never ends
    slow.push_back(fd);
  }
  int answered = 0;
  for (int i = 0; i < 30; ++i) {
    if (status_line(exchange(s.server->port(), "GET /metrics HTTP/1.1\r\n\r\n")) ==
        "HTTP/1.1 200 OK") {
      ++answered;
    }
  }
  CHECK(answered >= 29);
  for (const int fd : slow) ::close(fd);
}

TEST_CASE("a flood of slow connections from another address keeps out no scrape") {
  Served s;
  const int port = s.server->port();
  std::atomic<bool> done{false};
  std::atomic<int> opened{0};
  // 127.0.0.2 is loopback too: another client address for the server.
  std::thread flood([&] {
    std::deque<int> open;
    while (!done) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in from{};
      from.sin_family = AF_INET;
      ::inet_pton(AF_INET, "127.0.0.2", &from.sin_addr);
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_port = htons(static_cast<std::uint16_t>(port));
      ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
      if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
          ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
        ::close(fd);
        continue;
      }
      (void)!::write(fd, "GET /", 5);
      open.push_back(fd);
      ++opened;
      if (open.size() > 200) {
        ::close(open.front());
        open.pop_front();
      }
    }
    for (const int fd : open) ::close(fd);
  });
  while (opened < 200) std::this_thread::sleep_for(10ms);
  int answered = 0;
  for (int i = 0; i < 30; ++i) {
    if (status_line(exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK") {
      ++answered;
    }
  }
  done = true;
  flood.join();
  CHECK(answered >= 29);
}

TEST_CASE("an address in use is an error naming it") {
  Served s;
  boost::asio::io_context io;
  MetricsHttpOptions options;
  options.address = "127.0.0.1";
  options.port = s.server->port();
  try {
    MetricsHttpServer second(io, options, kRender, "text/plain");
    FAIL("a second server bound the same port");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot serve metrics on 127.0.0.1:" +
                                       std::to_string(options.port) + ": Address already in use");
  }
  options.max_connections = 0;
  CHECK_THROWS_AS(MetricsHttpServer(io, options, kRender, "text/plain"), std::invalid_argument);
  options.max_connections = 4;
  options.max_per_address = 0;
  CHECK_THROWS_AS(MetricsHttpServer(io, options, kRender, "text/plain"), std::invalid_argument);
}

}  // namespace metrics_http_test
