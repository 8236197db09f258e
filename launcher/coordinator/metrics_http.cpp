#include "launcher/coordinator/metrics_http.h"

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <exception>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "launcher/coordinator/handshake_slots.h"
#include "launcher/net/listening_acceptor.h"

namespace pai::launcher::coordinator {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr std::size_t kReadChunk = 4096;

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
  }
  return "Error";
}

// RFC 9110 token characters: what a method may be made of.
bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

HttpAnswer error_answer(int status, std::string body) {
  return HttpAnswer{status, std::move(body) + "\n", "text/plain; charset=utf-8", false};
}

// Where the request head ends (after its blank line), or npos while it has not.
std::size_t head_end(std::string_view data) {
  const std::size_t crlf = data.find("\r\n\r\n");
  const std::size_t lf = data.find("\n\n");
  if (crlf == std::string_view::npos) return lf == std::string_view::npos ? lf : lf + 2;
  if (lf == std::string_view::npos || crlf < lf) return crlf + 4;
  return lf + 2;
}

}  // namespace

HttpAnswer answer_request(std::string_view head, const std::function<std::string()>& render,
                          std::string_view content_type) {
  std::string_view line = head.substr(0, head.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return error_answer(400, "bad request line");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method) || target.empty() || target.front() != '/' ||
      (version != "HTTP/1.1" && version != "HTTP/1.0")) {
    return error_answer(400, "bad request line");
  }
  if (method != "GET" && method != "HEAD") {
    return error_answer(405, "only GET and HEAD are served");
  }
  if (target.substr(0, target.find('?')) != "/metrics") {
    return error_answer(404, "not found: the metrics are at /metrics");
  }
  HttpAnswer answer;
  answer.head = method == "HEAD";
  try {
    answer.body = render();
  } catch (const std::exception& e) {
    return error_answer(500, std::string("cannot render the metrics: ") + e.what());
  }
  answer.content_type = std::string(content_type);
  return answer;
}

std::string http_response(const HttpAnswer& answer) {
  std::string out =
      "HTTP/1.1 " + std::to_string(answer.status) + " " + reason_phrase(answer.status) + "\r\n";
  if (!answer.content_type.empty()) out += "Content-Type: " + answer.content_type + "\r\n";
  if (answer.status == 405) out += "Allow: GET, HEAD\r\n";
  out += "Content-Length: " + std::to_string(answer.body.size()) + "\r\nConnection: close\r\n\r\n";
  if (!answer.head) out += answer.body;
  return out;
}

// ---- The server ----

struct MetricsHttpServer::Impl : std::enable_shared_from_this<Impl> {
  class Connection;

  Impl(asio::io_context& io, MetricsHttpOptions opts, std::function<std::string()> render_fn,
       std::string type)
      : io(io),
        acceptor(io),
        retry(io),
        options(std::move(opts)),
        render(std::move(render_fn)),
        content_type(std::move(type)),
        slots(options.max_per_address, options.max_connections) {}

  void listen();
  void accept();
  void shutdown();

  asio::io_context& io;
  tcp::acceptor acceptor;
  asio::steady_timer retry;
  MetricsHttpOptions options;
  std::function<std::string()> render;
  std::string content_type;
  // Every open connection holds a slot from accept to close, by id (ids grow with arrival).
  HandshakeSlots slots;
  std::unordered_map<int, Connection*> live;
  int next_id = 0;
  bool closed = false;
  int bound_port = 0;
};

// One client: reads a request head, writes one answer, closes. Holds the server's Impl, which
// thus outlives it.
class MetricsHttpServer::Impl::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<Impl> server, tcp::socket socket, int id)
      : server_(std::move(server)), socket_(std::move(socket)), deadline_(server_->io), id_(id) {
    server_->live.emplace(id_, this);
  }
  ~Connection() {
    server_->live.erase(id_);
    server_->slots.release(id_);
  }

  /// Reads a request and answers it.
  void start() {
    deadline_.expires_after(server_->options.timeout);
    deadline_.async_wait([self = shared_from_this()](const error_code& ec) {
      if (!ec) self->close();
    });
    read();
  }

  void close() {
    error_code ignored;
    deadline_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

 private:
  void read() {
    const std::size_t have = request_.size();
    request_.resize(have + kReadChunk);
    socket_.async_read_some(asio::buffer(request_.data() + have, kReadChunk),
                            [self = shared_from_this(), have](const error_code& ec, std::size_t n) {
                              self->request_.resize(have + n);
                              if (ec) {
                                self->close();
                                return;
                              }
                              self->received();
                            });
  }

  void received() {
    const std::size_t end = head_end(request_);
    if (end == std::string::npos || end > server_->options.max_request_bytes) {
      if (request_.size() <= server_->options.max_request_bytes) {
        read();
        return;
      }
      respond(error_answer(431, "the request is longer than " +
                                    std::to_string(server_->options.max_request_bytes) + " bytes"));
      return;
    }
    respond(answer_request(std::string_view(request_).substr(0, end), server_->render,
                           server_->content_type));
  }

  void respond(const HttpAnswer& answer) {
    request_.clear();
    request_.shrink_to_fit();
    response_ = http_response(answer);
    asio::async_write(socket_, asio::buffer(response_),
                      [self = shared_from_this()](const error_code& ec, std::size_t) {
                        if (ec) {
                          self->close();
                          return;
                        }
                        self->response_.clear();
                        self->response_.shrink_to_fit();
                        error_code ignored;
                        self->socket_.shutdown(tcp::socket::shutdown_send, ignored);
                        self->drain();
                      });
  }

  // Closing with unread input would reset the connection and could destroy the answer before
  // the client read it: what it still sends is read and dropped until it closes (or the
  // deadline passes).
  void drain() {
    socket_.async_read_some(asio::buffer(discard_),
                            [self = shared_from_this()](const error_code& ec, std::size_t) {
                              if (ec) {
                                self->close();
                              } else {
                                self->drain();
                              }
                            });
  }

  std::shared_ptr<Impl> server_;
  tcp::socket socket_;
  asio::steady_timer deadline_;
  std::string request_;
  std::string response_;
  std::array<char, 1024> discard_;
  int id_;
};

void MetricsHttpServer::Impl::listen() {
  const std::string where = options.address + ":" + std::to_string(options.port);
  try {
    tcp::endpoint endpoint(asio::ip::make_address(options.address),
                           static_cast<unsigned short>(options.port));
    bound_port = net::listen_on(acceptor, endpoint);
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot serve metrics on " + where + ": " + e.code().message());
  }
}

void MetricsHttpServer::Impl::accept() {
  acceptor.async_accept([self = shared_from_this()](const error_code& ec, tcp::socket socket) {
    if (self->closed || ec == asio::error::operation_aborted) return;
    if (ec) {
      net::accept_again(ec, self->retry, [self] {
        if (!self->closed) self->accept();
      });
      return;
    }
    error_code peer_ec;
    const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
    const std::string address = peer_ec ? std::string("?") : peer.address().to_string();
    const int id = self->next_id++;
    if (const auto evicted = self->slots.admit(id, address)) {
      // Its handlers end with the close and drop it; its slot is already free.
      if (const auto it = self->live.find(evicted->id); it != self->live.end()) {
        it->second->close();
      }
    }
    std::make_shared<Connection>(self, std::move(socket), id)->start();
    self->accept();
  });
}

void MetricsHttpServer::Impl::shutdown() {
  closed = true;
  error_code ignored;
  acceptor.close(ignored);
  retry.cancel();
  // close() may end a connection whose handlers then drop it: iterate over a copy.
  const std::unordered_map<int, Connection*> open = live;
  for (const auto& [id, c] : open) c->close();
}

MetricsHttpServer::MetricsHttpServer(asio::io_context& io, MetricsHttpOptions options,
                                     std::function<std::string()> render,
                                     std::string content_type) {
  if (options.max_connections == 0 || options.max_per_address == 0) {
    throw std::invalid_argument(
        "MetricsHttpServer: max_connections and max_per_address must be at least 1");
  }
  impl_ =
      std::make_shared<Impl>(io, std::move(options), std::move(render), std::move(content_type));
  impl_->listen();
  impl_->accept();
}

MetricsHttpServer::~MetricsHttpServer() { impl_->shutdown(); }

int MetricsHttpServer::port() const { return impl_->bound_port; }

}  // namespace pai::launcher::coordinator
