// The metrics endpoint: a small HTTP/1.1 server on the coordinator's own Boost.Asio loop that
// answers GET /metrics with what a callback renders, and nothing else. One request per
// connection (each answer says "Connection: close"); bounded: request size, time per
// connection, and connections at once in all and per address, kept as the coordinator port
// keeps its handshakes (handshake_slots.h): a newcomer evicts the oldest connection, so slow
// or idle clients, even from the scraper's own address, cannot keep a scrape out. Internal to
// launcher/coordinator/.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace pai::launcher::coordinator {

struct MetricsHttpOptions {
  std::string address = "127.0.0.1";  ///< numeric address to bind
  int port = 0;                       ///< 0 = any (tests)
  /// Connections open at once, in all and from one address; at either cap a new connection
  /// evicts (closes) the oldest one of its address, or of the address holding the most. At
  /// least 1 each.
  std::size_t max_connections = 32;
  std::size_t max_per_address = 8;
  /// A request whose head (request line and headers) is longer is answered 431 and closed.
  std::size_t max_request_bytes = 8192;
  /// A connection still open this long after it was accepted (slow request, slow reader) is
  /// closed.
  std::chrono::milliseconds timeout{10000};
};

/// An HTTP answer: status code and reason, body, and the Content-Type of a 200.
struct HttpAnswer {
  int status = 200;
  std::string body;
  std::string content_type;
  bool head = false;  ///< a HEAD request: the headers alone
};

/// The answer to the request head `head` (request line and headers, without the blank line):
/// GET or HEAD /metrics (any query) → 200 with `render()`; another path → 404; another
/// method → 405; no valid request line or version → 400. `render` throwing → 500.
HttpAnswer answer_request(std::string_view head, const std::function<std::string()>& render,
                          std::string_view content_type);

/// The answer as bytes on the wire.
std::string http_response(const HttpAnswer& answer);

class MetricsHttpServer {
 public:
  /// Binds and listens on `options.address`:`options.port` and accepts on `io`, whose thread
  /// calls `render` for each GET /metrics. Throws std::runtime_error "cannot serve metrics on
  /// ADDR:PORT: REASON"; std::invalid_argument for a cap of 0.
  MetricsHttpServer(boost::asio::io_context& io, MetricsHttpOptions options,
                    std::function<std::string()> render, std::string content_type);
  /// Closes the listening socket and every connection (on the loop's thread, or with the loop
  /// stopped).
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  /// The port it listens on.
  int port() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace pai::launcher::coordinator
