#include "launcher/coordinator/session.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <utility>

namespace pai::launcher::coordinator {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// Reads per readiness before yielding to other connections, so one fast sender cannot
// starve the rest of the loop.
constexpr int kReadsPerWakeup = 16;
// hello and auth are a few hundred bytes. Without this cap, each of the thousands of
// unauthenticated connections allowed could make the server buffer a 1 MiB frame. It bounds
// everything a connection sends before it is welcomed, not one frame: a hello and an auth of
// 15 KiB each are over it too.
constexpr std::size_t kMaxHandshakeBytes = 16 * 1024;

std::string numeric_address(const asio::ip::tcp::socket& socket) {
  error_code ec;
  auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return address.to_string();
}

}  // namespace

Session::Session(asio::ip::tcp::socket socket, int id, std::string token, std::string job,
                 std::vector<char>& read_buffer, SessionListener& listener)
    : socket_(std::move(socket)),
      id_(id),
      read_buffer_(read_buffer),
      listener_(listener),
      address_(numeric_address(socket_)),
      handshake_(std::move(token), std::move(job)),
      accepted_at_(Clock::now()),
      last_received_(accepted_at_) {
  error_code ec;
  // Reads happen synchronously once the socket is readable (see on_readable), so they must
  // never block the loop; protocol messages are small and latency-bound.
  socket_.non_blocking(true, ec);
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

void Session::start() { read_next(); }

std::size_t Session::send(const nlohmann::json& message) {
  if (state_ == State::Authenticated) queue(handshake_.channel().seal(message));
  return queued_bytes_;
}

void Session::reject(const std::string& reason) {
  if (state_ != State::Handshaking) return;
  queue(net::ServerHandshake::reject(reason));
  close_after_flush();
}

void Session::close_after_flush() {
  if (state_ == State::Closing || state_ == State::Closed) return;
  state_ = State::Closing;
  closing_since_ = Clock::now();
  if (writing_.empty() && queued_.empty()) finish_close();
}

void Session::close() { finish_close(); }

void Session::read_next() {
  if (reading_ || !open_for_reading()) return;
  reading_ = true;
  // A read op, not a readiness wait: Asio reads at once when the socket is known to hold
  // data and otherwise waits for the next edge without re-arming epoll, so a small message
  // costs one recv. (A readiness wait re-arms with epoll_ctl and then reads until EAGAIN:
  // three system calls a heartbeat, measured at 8,192 launchers.)
  const std::size_t want = read_size(small_read_.size());
  socket_.async_read_some(asio::buffer(small_read_.data(), want),
                          [self = shared_from_this(), want](error_code ec, std::size_t n) {
                            self->reading_ = false;
                            if (!self->open_for_reading() || self->read_failed(ec)) return;
                            self->take(self->small_read_.data(), n);
                            // A full read: more may be waiting, read now with the large buffer.
                            if (n == want) self->drain();
                            self->read_next();
                          });
}

void Session::drain() {
  for (int i = 0; i < kReadsPerWakeup && open_for_reading(); ++i) {
    error_code ec;
    const std::size_t want = read_size(read_buffer_.size());
    std::size_t n = socket_.read_some(asio::buffer(read_buffer_.data(), want), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) return;
    if (read_failed(ec)) return;
    take(read_buffer_.data(), n);
    if (n < want) return;  // the socket is empty for now
  }
}

bool Session::open_for_reading() const {
  return state_ == State::Handshaking || state_ == State::Authenticated;
}

std::size_t Session::read_size(std::size_t capacity) const {
  // Before the welcome, read no more than one byte past the handshake's limit: that byte is
  // enough to refuse the connection, and no more is ever buffered for it.
  if (state_ != State::Handshaking) return capacity;
  return std::min(capacity, kMaxHandshakeBytes + 1 - std::min(kMaxHandshakeBytes, handshake_bytes()));
}

bool Session::read_failed(const error_code& ec) {
  if (!ec) return false;
  if (ec == asio::error::operation_aborted) return true;
  if (ec != asio::error::eof) {
    fail("connection lost: " + ec.message(), false);
  } else if (decoder_.buffered() > 0) {
    fail("truncated frame", true);
  } else if (state_ != State::Handshaking) {
    fail("connection closed", false);
  } else {
    fail(received_any_ ? "closed during the handshake" : "closed before sending anything", false);
  }
  return true;
}

void Session::take(const char* data, std::size_t size) {
  last_received_ = Clock::now();
  received_any_ = true;
  consume(data, size);
}

void Session::consume(const char* data, std::size_t size) {
  try {
    decoder_.feed(data, size);
    net::Frame frame;
    // A listener may close this session while it handles a frame: stop there.
    while ((state_ == State::Handshaking || state_ == State::Authenticated) &&
           decoder_.next(frame)) {
      if (state_ == State::Handshaking) handshake_frame_bytes_ += frame.signed_bytes.size();
      check_handshake_size();
      handle_frame(frame);
    }
    check_handshake_size();
  } catch (const net::ProtocolError& e) {
    fail(e.what(), true);
  }
}

std::size_t Session::handshake_bytes() const {
  return handshake_frame_bytes_ + decoder_.buffered();
}

void Session::check_handshake_size() const {
  if (state_ == State::Handshaking && handshake_bytes() > kMaxHandshakeBytes) {
    throw net::ProtocolError("handshake over " + std::to_string(kMaxHandshakeBytes) + " bytes");
  }
}

void Session::handle_frame(const net::Frame& frame) {
  if (state_ == State::Handshaking) {
    std::string reply = handshake_.on_frame(frame);
    if (!reply.empty()) queue(std::move(reply));
    if (handshake_.done()) {
      state_ = State::Authenticated;
      authenticated_ = true;
      listener_.welcomed(*this);
    }
    return;
  }
  nlohmann::json message = handshake_.channel().open(frame);
  listener_.received(*this, message);
}

void Session::fail(const std::string& reason, bool protocol_error) {
  if (state_ == State::Closing || state_ == State::Closed) return;
  // A peer that broke the handshake learns why; after it, frames are sealed and a broken
  // peer gets nothing more.
  bool send_reject = state_ == State::Handshaking && protocol_error;
  state_ = State::Closing;
  closing_since_ = Clock::now();
  listener_.failed(*this, reason, protocol_error);
  if (state_ == State::Closed) return;
  if (send_reject) {
    queue(net::ServerHandshake::reject(reason));
  } else {
    finish_close();
  }
}

void Session::queue(std::string bytes) {
  queued_bytes_ += bytes.size();
  queued_.push_back(std::move(bytes));
  if (writing_.empty()) write_next();
}

void Session::write_next() {
  // Everything queued goes out in one gathered write: one syscall for a burst of messages.
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(queued_.size());
  while (!queued_.empty()) {
    writing_.push_back(std::move(queued_.front()));
    queued_.pop_front();
    buffers.push_back(asio::buffer(writing_.back()));
  }
  asio::async_write(socket_, buffers, [self = shared_from_this()](error_code ec, std::size_t) {
    if (self->state_ == State::Closed) {
      self->writing_.clear();
      return;
    }
    for (const auto& bytes : self->writing_) self->queued_bytes_ -= bytes.size();
    self->writing_.clear();
    if (ec) {
      self->fail("connection lost: " + ec.message(), false);
      return;
    }
    if (!self->queued_.empty()) {
      self->write_next();
    } else if (self->state_ == State::Closing) {
      self->finish_close();
    } else {
      self->listener_.drained(*self);
    }
  });
}

void Session::finish_close() {
  if (state_ == State::Closed) return;
  state_ = State::Closed;
  error_code ec;
  // Unread input makes close() send a reset, which can destroy the reject or `finish` just
  // written before the peer reads it: discard what arrived, then close in order.
  for (int i = 0; i < kReadsPerWakeup; ++i) {
    std::size_t n = socket_.read_some(asio::buffer(read_buffer_), ec);
    if (ec || n == 0) break;
  }
  socket_.shutdown(asio::socket_base::shutdown_both, ec);
  socket_.close(ec);
  queued_.clear();
  queued_bytes_ = 0;
  asio::post(socket_.get_executor(),
             [self = shared_from_this()] { self->listener_.closed(*self); });
}

}  // namespace pai::launcher::coordinator
