#include "launcher/net/client.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>

#include <boost/asio.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <optional>

#include "launcher/net/frame.h"

namespace pai::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

std::string endpoint_label(const std::string& address, int port) {
  bool ipv6 = address.find(':') != std::string::npos;
  return (ipv6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

// How long one wait may block before stop_requested is asked again.
constexpr std::chrono::milliseconds kStopCheck{100};

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1'000'000'000 ? 1'000'000'000 : static_cast<int>(left);
}

}  // namespace

struct Client::Impl {
  asio::io_context io;
  tcp::socket socket{io};
  std::string label;  // "address:port", for every error message
  std::chrono::milliseconds send_timeout;
  std::chrono::milliseconds unacknowledged_timeout{0};
  FrameDecoder decoder;
  std::deque<Frame> frames;  // decoded, not yet handed out
  std::optional<SecureChannel> channel;
  std::function<int()> stop_requested;  // only while connecting and authenticating

  [[noreturn]] void fail(const std::string& reason) const {
    throw ConnectionError(label + ": " + reason);
  }
  // `doing` ("send failed") failed with `ec`; a connection the kernel closed for want of
  // acknowledgements says so in words.
  [[noreturn]] void broken(const char* doing, const boost::system::error_code& ec) const {
    if (ec == asio::error::timed_out && unacknowledged_timeout.count() > 0) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "the coordinator acknowledged nothing for %.1fs: its host is down or "
                    "unreachable",
                    static_cast<double>(unacknowledged_timeout.count()) / 1000.0);
      fail(text);
    }
    fail(std::string(doing) + ": " + ec.message());
  }

  void connect(const ClientOptions& options, Clock::time_point deadline);
  // Throws Interrupted when stop_requested says so.
  void check_stop() const;
  // The end of the next wait: `deadline`, or sooner when stop_requested must be asked.
  Clock::time_point slice(Clock::time_point deadline) const;
  void handshake(const ClientOptions& options, Clock::time_point deadline);
  // Waits for `events` on the socket until `deadline`; false on timeout.
  bool wait(short events, Clock::time_point deadline);
  void write_all(const std::string& bytes, Clock::time_point deadline);
  // Reads once into the decoder; false on timeout. Throws ConnectionError at end of stream.
  bool read_more(Clock::time_point deadline);
  // The next frame, or nullopt at the deadline.
  std::optional<Frame> next_frame(Clock::time_point deadline);
};

void Client::Impl::check_stop() const {
  if (!stop_requested) return;
  if (const int signal = stop_requested()) throw Interrupted(label, signal);
}

Clock::time_point Client::Impl::slice(Clock::time_point deadline) const {
  if (!stop_requested) return deadline;
  return std::min(deadline, Clock::now() + kStopCheck);
}

void Client::Impl::connect(const ClientOptions& options, Clock::time_point deadline) {
  tcp::resolver resolver(io);
  boost::system::error_code ec;
  auto endpoints = resolver.resolve(options.address, std::to_string(options.port),
                                    tcp::resolver::numeric_service, ec);
  if (ec) fail("cannot resolve the coordinator's address: " + ec.message());
  std::optional<asio::ip::address> bind_address;
  if (!options.bind_address.empty()) {
    bind_address = asio::ip::make_address(options.bind_address, ec);
    if (ec) fail("invalid local bind address \"" + options.bind_address + "\": " + ec.message());
  }
  std::string last_error = "no address to connect to";
  for (const auto& entry : endpoints) {
    tcp::endpoint endpoint = entry.endpoint();
    socket.close(ec);
    socket.open(endpoint.protocol(), ec);
    if (ec) {
      last_error = "cannot open a socket: " + ec.message();
      continue;
    }
    if (bind_address) {
      if (bind_address->is_v4() != endpoint.address().is_v4()) {
        last_error = "local address " + options.bind_address + " is not of the same family";
        continue;
      }
      socket.bind(tcp::endpoint(*bind_address, 0), ec);
      if (ec) {
        last_error = "cannot bind to local address " + options.bind_address + ": " + ec.message();
        continue;
      }
    }
    // Asio's blocking connect has no timeout: run the asynchronous one for the time left.
    bool finished = false;
    boost::system::error_code result;
    socket.async_connect(endpoint, [&](const boost::system::error_code& e) {
      finished = true;
      result = e;
    });
    io.restart();
    std::optional<Interrupted> interrupted;
    do {
      io.run_for(std::chrono::milliseconds(remaining_ms(slice(deadline))));
      if (finished) break;
      try {
        check_stop();
      } catch (const Interrupted& e) {
        interrupted = e;
        break;
      }
      io.restart();
    } while (Clock::now() < deadline);
    if (!finished) {
      socket.close(ec);  // cancels the connect; its handler runs with operation_aborted
      io.restart();
      io.run();
      if (interrupted) throw *interrupted;
      fail("cannot connect: timed out after " + std::to_string(options.connect_timeout.count()) +
           " ms");
    }
    // A client retrying a local port nobody listens on yet can connect to itself (TCP
    // simultaneous open: its ephemeral port was the port it dialed), and then holds the very
    // port the coordinator is about to listen on.
    if (!result && socket.local_endpoint(ec) == endpoint) {
      socket.close(ec);
      last_error = "connected to itself (nothing listens yet)";
      continue;
    }
    if (!result) {
      socket.set_option(tcp::no_delay(true), ec);
      if (options.unacknowledged_timeout.count() > 0) {
        const auto ms = static_cast<unsigned>(options.unacknowledged_timeout.count());
        if (::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_USER_TIMEOUT, &ms,
                         sizeof ms) != 0) {
          fail(std::string("cannot set TCP_USER_TIMEOUT: ") + std::strerror(errno));
        }
        unacknowledged_timeout = options.unacknowledged_timeout;
      }
      socket.non_blocking(true, ec);
      if (ec) fail("cannot make the socket non-blocking: " + ec.message());
      return;
    }
    last_error = result.message();
  }
  fail("cannot connect: " + last_error);
}

bool Client::Impl::wait(short events, Clock::time_point deadline) {
  for (;;) {
    check_stop();
    pollfd fd{socket.native_handle(), events, 0};
    int ready = ::poll(&fd, 1, remaining_ms(slice(deadline)));
    if (ready > 0) return true;
    if (ready == 0) {
      if (Clock::now() < deadline) continue;
      return false;
    }
    if (errno != EINTR) fail(std::string("poll failed: ") + std::strerror(errno));
  }
}

void Client::Impl::write_all(const std::string& bytes, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    boost::system::error_code ec;
    done += socket.write_some(asio::buffer(bytes.data() + done, bytes.size() - done), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      if (!wait(POLLOUT, deadline)) fail("send timed out: the coordinator is not reading");
    } else if (ec == asio::error::interrupted) {
      continue;
    } else if (ec) {
      broken("send failed", ec);
    }
  }
}

bool Client::Impl::read_more(Clock::time_point deadline) {
  char buffer[64 * 1024];
  for (;;) {
    boost::system::error_code ec;
    std::size_t size = socket.read_some(asio::buffer(buffer), ec);
    if (ec == asio::error::eof) fail("the coordinator closed the connection");
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      if (!wait(POLLIN, deadline)) return false;
      continue;
    }
    if (ec == asio::error::interrupted) continue;
    if (ec) broken("receive failed", ec);
    try {
      decoder.feed(buffer, size);
      Frame frame;
      while (decoder.next(frame)) frames.push_back(std::move(frame));
    } catch (const ProtocolError& e) {
      fail(std::string("bad frame from the coordinator: ") + e.what());
    }
    return true;
  }
}

std::optional<Frame> Client::Impl::next_frame(Clock::time_point deadline) {
  while (frames.empty()) {
    if (!read_more(deadline)) return std::nullopt;
  }
  Frame frame = std::move(frames.front());
  frames.pop_front();
  return frame;
}

void Client::Impl::handshake(const ClientOptions& options, Clock::time_point deadline) {
  ClientHandshake handshake(options.token, options.job, options.claim);
  write_all(handshake.hello(), deadline);
  while (!handshake.done()) {
    std::optional<Frame> frame = next_frame(deadline);
    if (!frame) {
      fail("handshake timed out after " + std::to_string(options.connect_timeout.count()) + " ms");
    }
    std::string reply;
    try {
      reply = handshake.on_frame(*frame);
    } catch (const ProtocolError& e) {
      fail(std::string("handshake failed: ") + e.what());
    }
    if (!reply.empty()) write_all(reply, deadline);
  }
  channel.emplace(std::move(handshake.channel()));
}

Client::Client(const ClientOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->label = endpoint_label(options.address, options.port);
  impl_->send_timeout = options.send_timeout;
  // One deadline for connecting and authenticating: a caller waits connect_timeout at most.
  const Clock::time_point deadline = Clock::now() + options.connect_timeout;
  impl_->stop_requested = options.stop_requested;
  impl_->check_stop();
  impl_->connect(options, deadline);
  impl_->handshake(options, deadline);
  impl_->stop_requested = nullptr;
}

Client::~Client() = default;

void Client::send(const nlohmann::json& message) {
  std::string frame;
  try {
    frame = impl_->channel->seal(message);
  } catch (const ProtocolError& e) {
    impl_->fail(std::string("cannot send: ") + e.what());
  }
  impl_->write_all(frame, Clock::now() + impl_->send_timeout);
}

std::optional<nlohmann::json> Client::receive(std::chrono::milliseconds timeout) {
  std::optional<Frame> frame = impl_->next_frame(Clock::now() + timeout);
  if (!frame) return std::nullopt;
  try {
    return impl_->channel->open(*frame);
  } catch (const ProtocolError& e) {
    impl_->fail(std::string("bad message from the coordinator: ") + e.what());
  }
}

int Client::native_handle() const { return impl_->socket.native_handle(); }

bool Client::has_buffered() const { return !impl_->frames.empty(); }

}  // namespace pai::net
