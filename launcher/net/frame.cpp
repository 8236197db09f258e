#include "launcher/net/frame.h"

#include <string>

namespace pai::net {
namespace {

void put_be(std::string& out, std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_be(const char* data, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(data[i]);
  return value;
}

bool known_kind(std::uint8_t kind) {
  switch (static_cast<FrameKind>(kind)) {
    case FrameKind::Hello:
    case FrameKind::Challenge:
    case FrameKind::Auth:
    case FrameKind::Welcome:
    case FrameKind::Reject:
    case FrameKind::Sealed:
      return true;
  }
  return false;
}

// Once consumed bytes outnumber this, the buffer is compacted so a long connection does not
// grow it without bound; below it, moving the tail would cost more than it saves.
constexpr std::size_t kCompactThreshold = 64 * 1024;

}  // namespace

ProtocolError field_error(std::string_view type, std::string_view field, const std::string& what) {
  return ProtocolError(std::string(type) + ": " + std::string(field) + ": " + what);
}

std::string header_and_body(FrameKind kind, std::uint64_t seq, std::string_view body) {
  if (body.size() > kMaxFrameBody) {
    throw ProtocolError("frame body of " + std::to_string(body.size()) +
                        " bytes is over the limit of " + std::to_string(kMaxFrameBody));
  }
  std::string out;
  out.reserve(kFrameHeaderSize + body.size() + kMacSize);
  put_be(out, body.size(), 4);
  out.push_back(static_cast<char>(kProtocolVersion));
  out.push_back(static_cast<char>(kind));
  put_be(out, 0, 2);
  put_be(out, seq, 8);
  out.append(body);
  return out;
}

std::string encode_frame(FrameKind kind, std::uint64_t seq, std::string_view body,
                         std::string_view mac) {
  const std::size_t expected = kind == FrameKind::Sealed ? kMacSize : 0;
  if (mac.size() != expected) {
    throw ProtocolError("frame MAC of " + std::to_string(mac.size()) + " bytes, expected " +
                        std::to_string(expected));
  }
  std::string out = header_and_body(kind, seq, body);
  out.append(mac);
  return out;
}

void FrameDecoder::feed(const char* data, std::size_t size) {
  if (offset_ > 0 && (offset_ == buffer_.size() || offset_ >= kCompactThreshold)) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  buffer_.append(data, size);
}

bool FrameDecoder::next(Frame& out) {
  const std::size_t available = buffer_.size() - offset_;
  if (available < kFrameHeaderSize) return false;
  const char* header = buffer_.data() + offset_;
  // The header is checked before waiting for the body, so an oversized or foreign frame is
  // refused without buffering what it announces.
  const std::uint64_t length = get_be(header, 4);
  const auto version = static_cast<std::uint8_t>(header[4]);
  const auto kind = static_cast<std::uint8_t>(header[5]);
  if (version != kProtocolVersion) {
    throw ProtocolError("unsupported protocol version " + std::to_string(version) + " (expected " +
                        std::to_string(kProtocolVersion) + ")");
  }
  if (!known_kind(kind)) throw ProtocolError("unknown frame kind " + std::to_string(kind));
  if (get_be(header + 6, 2) != 0) throw ProtocolError("reserved frame field is not 0");
  if (length > kMaxFrameBody) {
    throw ProtocolError("frame body of " + std::to_string(length) + " bytes is over the limit of " +
                        std::to_string(kMaxFrameBody));
  }
  const auto frame_kind = static_cast<FrameKind>(kind);
  const std::size_t mac_size = frame_kind == FrameKind::Sealed ? kMacSize : 0;
  const std::size_t total = kFrameHeaderSize + static_cast<std::size_t>(length) + mac_size;
  if (available < total) return false;

  const std::size_t signed_size = kFrameHeaderSize + static_cast<std::size_t>(length);
  out.kind = frame_kind;
  out.seq = get_be(header + 8, 8);
  out.signed_bytes.assign(header, signed_size);
  out.body.assign(header + kFrameHeaderSize, static_cast<std::size_t>(length));
  out.mac.assign(header + signed_size, mac_size);
  offset_ += total;
  if (offset_ == buffer_.size()) {
    buffer_.clear();
    offset_ = 0;
  }
  return true;
}

}  // namespace pai::net
