// Authentication of coordinator connections (docs/protocol.md): a mutual HMAC-SHA256
// challenge-response over the job token, then sealed frames with per-direction session keys
// and strict sequence numbers. The crypto is OpenSSL's libcrypto, through libpai/hmac.h (the
// HMAC the plan seal uses too); nothing here is home-made beyond the message layout.
//
// Transport-agnostic: the Asio server, the node launcher's link and the blocking client all
// feed received frames in and write the returned bytes out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "launcher/net/frame.h"
#include "libpai/hmac.h"

namespace pai::net {

/// 32 random bytes from RAND_bytes, hex-encoded (64 characters). Throws std::runtime_error if
/// the CSPRNG fails.
std::string random_nonce();

/// Who is connecting, as stated in `hello`.
struct PeerClaim {
  std::string peer;  ///< "launcher" or "control"
  std::string node;  ///< the node the launcher claims to be; a control client's hostname
};

/// A client's first frame.
struct Hello {
  PeerClaim claim;
  std::string nonce;  ///< hex, as sent
  /// When the client's process started, in ms since 1970 on its clock; 0 when it did not say.
  std::int64_t started_unix_ms = 0;
};

/// When this process started (its first use of the network library), in ms since 1970: the
/// `started` of its hellos.
std::int64_t process_started_unix_ms();

/// Reads a `hello` frame for job `job`. Throws ProtocolError naming what is wrong (another
/// frame, another job, a bad peer kind, node name or nonce); the peer's text is quoted and cut.
Hello parse_hello(const Frame& frame, const std::string& job);

/// Seals outgoing and opens incoming bodies of one authenticated connection.
class SecureChannel {
 public:
  SecureChannel(std::string send_key, std::string receive_key);
  /// A sealed frame carrying `message` (serialized compactly), with the next sequence number.
  std::string seal(const nlohmann::json& message);
  /// Verifies a received frame (kind Sealed, the next sequence number, the MAC) and parses its
  /// body as a JSON object with a string "type". Throws ProtocolError naming what failed.
  nlohmann::json open(const Frame& frame);

 private:
  HmacSha256 send_mac_;
  HmacSha256 receive_mac_;
  std::uint64_t sent_ = 0;
  std::uint64_t received_ = 0;
};

/// The server's side of the handshake for one connection.
class ServerHandshake {
 public:
  ServerHandshake(std::string token, std::string job);
  /// Feeds a received handshake frame; returns the bytes to send (possibly empty). After the
  /// `auth` frame, done() is true and channel() is ready; the welcome frame is in the returned
  /// bytes. Throws ProtocolError (wrong job, wrong proof, unexpected frame, bad JSON); the
  /// caller then sends reject(what()) and closes.
  std::string on_frame(const Frame& frame);
  bool done() const { return channel_.has_value(); }
  const PeerClaim& claim() const { return claim_; }
  SecureChannel& channel() { return *channel_; }
  /// A reject frame with `reason`.
  static std::string reject(const std::string& reason);

 private:
  std::string token_;
  std::string job_;
  std::string client_nonce_;
  std::string server_nonce_;
  PeerClaim claim_;
  std::optional<SecureChannel> channel_;
};

/// The client's side of the handshake.
class ClientHandshake {
 public:
  ClientHandshake(std::string token, std::string job, PeerClaim claim);
  /// The hello frame to send first.
  std::string hello();
  /// Feeds a received frame; returns the bytes to send. done() once `welcome` arrived. Throws
  /// ProtocolError for a `reject` (what() = "rejected by the coordinator: REASON"), a server
  /// proof that does not verify ("the coordinator does not know the job token") or an
  /// unexpected frame.
  std::string on_frame(const Frame& frame);
  bool done() const { return welcomed_; }
  SecureChannel& channel() { return *channel_; }

 private:
  std::string token_;
  std::string job_;
  PeerClaim claim_;
  std::string client_nonce_;
  std::optional<SecureChannel> channel_;
  bool welcomed_ = false;
};

}  // namespace pai::net
