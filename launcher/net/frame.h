// Frames of the coordinator protocol (docs/protocol.md): length-prefixed, versioned, capped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pai::net {

inline constexpr std::uint8_t kProtocolVersion = 1;
inline constexpr std::size_t kFrameHeaderSize = 16;
inline constexpr std::size_t kMacSize = 32;
/// Hard cap on a frame's body; a header announcing more is rejected before its body is read.
inline constexpr std::size_t kMaxFrameBody = std::size_t{1} << 20;

enum class FrameKind : std::uint8_t {
  Hello = 1,
  Challenge = 2,
  Auth = 3,
  Welcome = 4,
  Reject = 5,
  Sealed = 16,  ///< followed by a MAC (auth.h)
};

/// A malformed frame or message, a failed MAC or sequence check. what() says which, for the log.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// ProtocolError "<type>: <field>: <what>", the form of every error about a message's field.
ProtocolError field_error(std::string_view type, std::string_view field, const std::string& what);

struct Frame {
  FrameKind kind = FrameKind::Hello;
  std::uint64_t seq = 0;
  std::string body;
  std::string mac;  ///< kMacSize bytes for Sealed frames, else empty
  /// The header and body as received: what the MAC covers.
  std::string signed_bytes;
};

/// Encodes one frame. `mac` must be kMacSize bytes for Sealed and empty otherwise; use
/// header_and_body() + the MAC for sealed frames (SecureChannel does).
std::string encode_frame(FrameKind kind, std::uint64_t seq, std::string_view body,
                         std::string_view mac = {});
/// The header and body of a frame, without MAC: what a sealed frame's MAC covers.
std::string header_and_body(FrameKind kind, std::uint64_t seq, std::string_view body);

/// Splits a byte stream into frames. Feed what the socket gave, then take frames until
/// next() returns false. Errors are thrown as ProtocolError and leave the decoder unusable.
class FrameDecoder {
 public:
  /// Appends received bytes.
  void feed(const char* data, std::size_t size);
  /// Takes the next complete frame into `out`; false when more bytes are needed. Throws
  /// ProtocolError for a wrong version, an unknown kind, a reserved field that is not 0 or a
  /// body over kMaxFrameBody (as soon as the header is in).
  bool next(Frame& out);
  /// Bytes of an incomplete frame; non-zero at end of stream means a truncated frame.
  std::size_t buffered() const { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  std::size_t offset_ = 0;
};

}  // namespace pai::net
