#include "launcher/store/store_server.h"

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>

#include "launcher/net/listening_acceptor.h"
#include "launcher/store/key_value_store.h"

namespace pai::launcher::store {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kMaxIncidents = 100;

// The soft RLIMIT_NOFILE in force (RLIM_INFINITY is the largest number); none when it cannot
// be read.
std::uint64_t open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return UINT64_MAX;
  return limit.rlim_cur;
}

}  // namespace

std::size_t connection_cap(std::size_t max_connections, std::uint64_t descriptor_limit) {
  const std::uint64_t ours = descriptor_limit - descriptor_limit / 4;
  return static_cast<std::size_t>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(max_connections, ours)));
}

struct StoreServer::Impl {
  class Connection;

  explicit Impl(StoreServerOptions opts)
      : options(std::move(opts)),
        max_connections(connection_cap(options.max_connections, open_files_limit())),
        store(options.max_bytes),
        acceptor(io),
        retry(io) {}

  void listen();
  void accept();
  // Sends what the store answered to the clients it is for.
  void deliver(std::vector<Outgoing>& out);
  void incident(const std::string& client, const std::string& error);

  StoreServerOptions options;
  std::size_t max_connections;  // options' cap, lowered by the open files limit
  KeyValueStore store;
  std::unordered_map<ClientId, Connection*> live;
  ClientId next_id = 1;
  int bound_port = 0;

  std::mutex mutex;
  std::vector<StoreIncident> incidents;  // guarded by mutex
  std::size_t incidents_dropped = 0;     // guarded by mutex

  // Declared after what the connections touch: the handlers destroyed with `io` end the
  // connections, whose destructors update `live` and `store`.
  asio::io_context io;
  tcp::acceptor acceptor;
  asio::steady_timer retry;  // the next accept after an error
  std::thread thread;
};

// One client: reads requests, has the store carry them out, writes the replies in order.
class StoreServer::Impl::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Impl& server, tcp::socket socket, ClientId id, std::string peer)
      : server_(server), socket_(std::move(socket)), id_(id), peer_(std::move(peer)) {
    server_.live.emplace(id_, this);
  }
  ~Connection() {
    server_.live.erase(id_);
    server_.store.forget(id_);
  }

  void start() { read(); }

  void send(std::string bytes) {
    if (closed_) return;
    queued_ += bytes.size();
    if (queued_ > server_.options.max_queued_bytes) {
      fail("its unread replies passed " + std::to_string(server_.options.max_queued_bytes) +
           " bytes");
      return;
    }
    pending_.push_back(std::move(bytes));
    if (pending_.size() == 1) write();
  }

  void close() {
    closed_ = true;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

 private:
  void read() {
    socket_.async_read_some(asio::buffer(chunk_),
                            [self = shared_from_this()](const error_code& ec, std::size_t n) {
                              if (ec || self->closed_) {
                                self->close();
                                return;
                              }
                              self->input_.append(self->chunk_.data(), n);
                              self->received();
                            });
  }

  void received() {
    std::size_t used = 0;
    std::vector<Outgoing> out;
    try {
      while (!closed_) {
        auto request =
            parse_request(std::string_view(input_).substr(used), dialect_, server_.options.limits);
        if (!request) break;
        used += request->second;
        server_.store.apply(id_, request->first, out);
      }
    } catch (const StoreProtocolError& e) {
      server_.deliver(out);
      fail(std::string("it sent ") + e.what());
      return;
    } catch (const StoreRequestError& e) {
      server_.deliver(out);
      fail(e.what());
      return;
    }
    input_.erase(0, used);
    server_.deliver(out);
    if (!closed_) read();
  }

  void write() {
    asio::async_write(socket_, asio::buffer(pending_.front()),
                      [self = shared_from_this()](const error_code& ec, std::size_t n) {
                        if (ec) {
                          self->close();
                          return;
                        }
                        self->queued_ -= n;
                        self->pending_.pop_front();
                        if (!self->pending_.empty()) self->write();
                      });
  }

  void fail(const std::string& why) {
    server_.incident(peer_, why);
    close();
  }

  Impl& server_;
  tcp::socket socket_;
  ClientId id_;
  std::string peer_;
  Dialect dialect_ = Dialect::Unknown;
  std::array<char, kReadChunk> chunk_{};
  std::string input_;
  std::deque<std::string> pending_;
  std::size_t queued_ = 0;
  bool closed_ = false;
};

void StoreServer::Impl::listen() {
  const std::string where = options.address + ":" + std::to_string(options.port);
  try {
    // Every address of MASTER_ADDR's family, as torch's store listens.
    tcp::resolver resolver(io);
    const auto results = resolver.resolve(options.address, "", tcp::resolver::numeric_service);
    const bool v6 = !results.empty() && results.begin()->endpoint().address().is_v6();
    const tcp::endpoint endpoint(v6 ? tcp::v6() : tcp::v4(),
                                 static_cast<unsigned short>(options.port));
    bound_port = net::listen_on(acceptor, endpoint);
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot serve the ranks' store on " + where + ": " +
                             e.code().message());
  }
}

void StoreServer::Impl::accept() {
  // `this` outlives its handlers: they go with `io`, its member.
  acceptor.async_accept([self = this](const error_code& ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      net::accept_again(ec, self->retry, [self] { self->accept(); });
      return;
    }
    error_code peer_ec;
    const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
    const std::string name =
        peer_ec ? std::string("?") : peer.address().to_string() + ":" + std::to_string(peer.port());
    error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    if (self->live.size() >= self->max_connections) {
      self->incident(name, "refused: " + std::to_string(self->live.size()) +
                               " connections are open, the most the store takes");
      socket.close(ignored);
    } else {
      std::make_shared<Connection>(*self, std::move(socket), self->next_id++, name)->start();
    }
    self->accept();
  });
}

void StoreServer::Impl::deliver(std::vector<Outgoing>& out) {
  for (Outgoing& o : out) {
    if (const auto it = live.find(o.client); it != live.end()) it->second->send(std::move(o.bytes));
  }
  out.clear();
}

void StoreServer::Impl::incident(const std::string& client, const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex);
  if (incidents.size() < kMaxIncidents) {
    incidents.push_back(StoreIncident{client, error});
  } else {
    ++incidents_dropped;
  }
}

StoreServer::StoreServer(StoreServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->listen();
  impl_->accept();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

StoreServer::~StoreServer() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  // The connections, held by their pending handlers, close as impl_ destroys `io`.
}

int StoreServer::port() const { return impl_->bound_port; }

std::vector<StoreIncident> StoreServer::take_incidents() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<StoreIncident> out = std::move(impl_->incidents);
  impl_->incidents.clear();
  if (impl_->incidents_dropped > 0) {
    out.push_back(StoreIncident{
        "", std::to_string(impl_->incidents_dropped) + " more clients closed, not listed"});
    impl_->incidents_dropped = 0;
  }
  return out;
}

}  // namespace pai::launcher::store
