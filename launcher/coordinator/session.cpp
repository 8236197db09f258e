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

void Session::start() { wait_readable(); }

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

void Session::wait_readable() {
  if (reading_ || (state_ != State::Handshaking && state_ != State::Authenticated)) return;
  reading_ = true;
  socket_.async_wait(asio::socket_base::wait_read, [self = shared_from_this()](error_code ec) {
    self->reading_ = false;
    if (self->state_ != State::Handshaking && self->state_ != State::Authenticated) return;
    if (ec) {
      if (ec != asio::error::operation_aborted)
        self->fail("connection lost: " + ec.message(), false);
      return;
    }
    self->on_readable();
  });
}

void Session::on_readable() {
  for (int i = 0; i < kReadsPerWakeup; ++i) {
    error_code ec;
    // Before the welcome, read no more than one byte past the handshake's limit: that byte is
    // enough to refuse the connection, and no more is ever buffered for it.
    std::size_t want = read_buffer_.size();
    if (state_ == State::Handshaking) {
      want = std::min(want, kMaxHandshakeBytes + 1 - handshake_bytes());
    }
    std::size_t n = socket_.read_some(asio::buffer(read_buffer_.data(), want), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) break;
    if (ec == asio::error::eof) {
      if (decoder_.buffered() > 0) {
        fail("truncated frame", true);
      } else if (state_ != State::Handshaking) {
        fail("connection closed", false);
      } else {
        fail(received_any_ ? "closed during the handshake" : "closed before sending anything",
             false);
      }
      return;
    }
    if (ec) {
      fail("connection lost: " + ec.message(), false);
      return;
    }
    last_received_ = Clock::now();
    received_any_ = true;
    consume(read_buffer_.data(), n);
    if (state_ != State::Handshaking && state_ != State::Authenticated) return;
  }
  wait_readable();
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
