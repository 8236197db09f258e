// One TCP connection of the coordinator (docs/protocol.md): frames in, the server's side of
// the handshake, then sealed messages both ways with a bounded output queue. A Session only
// speaks the protocol; what the connection means to the job (the machine, heartbeats, limits)
// is decided by its SessionListener, the coordinator server. Internal to coordinator/: the
// only file besides coordinator_server.cpp that sees Boost.Asio types.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launcher/net/auth.h"
#include "launcher/net/frame.h"

namespace pai::launcher::coordinator {

class Session;

/// What a Session reports, always from an Asio handler (never from inside a Session call),
/// so the listener may send to and close any session, this one included.
class SessionListener {
 public:
  virtual ~SessionListener() = default;
  /// The handshake succeeded; session.claim() says who it is.
  virtual void welcomed(Session& session) = 0;
  /// A sealed message arrived and verified (an object with a string "type").
  virtual void received(Session& session, const nlohmann::json& message) = 0;
  /// The connection ended on its own: `protocol_error` when the peer broke the protocol
  /// (bad frame, failed handshake, replay, truncated frame), else it closed or broke. The
  /// session no longer reads and closes itself (after flushing a handshake reject).
  virtual void failed(Session& session, const std::string& reason, bool protocol_error) = 0;
  /// Everything queued was written.
  virtual void drained(Session& session) = 0;
  /// The socket is closed; the last call for this session.
  virtual void closed(Session& session) = 0;
};

/// Reads a small message into a buffer of its own and anything larger with a buffer lent by
/// the server for the duration of one read, writes one batch at a time.
class Session : public std::enable_shared_from_this<Session> {
 public:
  using Clock = std::chrono::steady_clock;

  enum class State {
    Handshaking,    ///< waiting for hello / auth
    Authenticated,  ///< welcomed; sealed messages both ways
    Closing,        ///< writing what is queued, then closing; reads nothing more
    Closed,
  };

  /// `read_buffer` is shared by all sessions of the (single-threaded) server.
  Session(boost::asio::ip::tcp::socket socket, int id, std::string token, std::string job,
          std::vector<char>& read_buffer, SessionListener& listener);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Starts reading.
  void start();
  /// Seals `message` and queues it. Returns the bytes now queued and not yet written, so the
  /// caller can drop a peer that does not read. Ignored unless Authenticated.
  std::size_t send(const nlohmann::json& message);
  /// Handshaking only: sends a reject frame saying `reason`, then closes.
  void reject(const std::string& reason);
  /// Stops reading; closes once what is queued is written.
  void close_after_flush();
  /// Closes at once, dropping what is queued.
  void close();

  int id() const { return id_; }
  State state() const { return state_; }
  /// The numeric address the connection comes from (IPv4-mapped addresses unmapped).
  const std::string& address() const { return address_; }
  /// Who the peer said it is; meaningful once welcomed.
  const net::PeerClaim& claim() const { return handshake_.claim(); }
  /// Whether the handshake succeeded (true also while Closing after it).
  bool authenticated() const { return authenticated_; }
  Clock::time_point accepted_at() const { return accepted_at_; }
  /// When bytes last came in (accepted_at() before any).
  Clock::time_point last_received() const { return last_received_; }
  /// Nothing was ever received (a port probe, such as another node's network check).
  bool silent() const { return !received_any_; }
  /// When close_after_flush() was called.
  Clock::time_point closing_since() const { return closing_since_; }
  /// Bytes queued or being written (0 once closed).
  std::size_t pending_output() const { return queued_bytes_; }

 private:
  // Reads into small_read_; a read that fills it drains the socket with the shared buffer.
  void read_next();
  // Reads what is waiting with the shared buffer, up to kReadsPerWakeup reads.
  void drain();
  bool open_for_reading() const;
  // How much the next read may take into a buffer of `capacity` (capped while handshaking).
  std::size_t read_size(std::size_t capacity) const;
  // Handles a read's error (eof, reset, abort): true when reading is over.
  bool read_failed(const boost::system::error_code& ec);
  // Bytes just read: noted and consumed.
  void take(const char* data, std::size_t size);
  // Feeds received bytes to the decoder and handles every complete frame.
  void consume(const char* data, std::size_t size);
  void handle_frame(const net::Frame& frame);
  // Bytes received before the welcome: the handshake frames taken and what is buffered.
  std::size_t handshake_bytes() const;
  // Throws ProtocolError once a connection that is still handshaking sent more than the limit.
  void check_handshake_size() const;
  void fail(const std::string& reason, bool protocol_error);
  void queue(std::string bytes);
  void write_next();
  void finish_close();

  boost::asio::ip::tcp::socket socket_;
  int id_;
  std::vector<char>& read_buffer_;
  SessionListener& listener_;
  std::string address_;
  State state_ = State::Handshaking;
  bool authenticated_ = false;
  net::FrameDecoder decoder_;
  net::ServerHandshake handshake_;
  std::size_t handshake_frame_bytes_ = 0;  // of the hello and auth frames taken
  Clock::time_point accepted_at_;
  Clock::time_point last_received_;
  bool received_any_ = false;
  Clock::time_point closing_since_;
  std::deque<std::string> queued_;
  std::vector<std::string> writing_;  // the batch of the async_write in flight
  std::size_t queued_bytes_ = 0;      // in queued_ and writing_
  bool reading_ = false;              // a read is pending
  // Where a pending read lands. A heartbeat fits: most reads need nothing more, and the
  // read stays pending on the socket without taking the shared buffer.
  std::array<char, 512> small_read_{};
};

}  // namespace pai::launcher::coordinator
