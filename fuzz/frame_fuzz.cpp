// libFuzzer harness over the coordinator protocol's receiving side (docs/protocol.md): bytes
// from an unauthenticated peer go through FrameDecoder, then every decoded frame through a
// server handshake and through sealed-frame opening, and every opened body through the
// message parsers of all four directions (protocol.h). ProtocolError is the only way to say
// no; a message that parses must convert back to JSON that parses to the same message.
//
// Input layout: byte 0 picks the read size (1..256 bytes per feed, so frames arrive split
// like they do from a socket); the rest is the byte stream.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "launcher/net/auth.h"
#include "launcher/net/frame.h"
#include "launcher/net/protocol.h"
#include "libpai/hmac.h"

namespace {

// Known to fuzz/make_frame_seeds.py, which MACs the sealed seed frames with it.
constexpr char kSessionKey[] = "frame-fuzz-session-key";
// Instances of the plan the node-side parsers check instance numbers against.
constexpr int kInstances = 4;

// `body` as a message of one direction: refused, or the same message after a round trip.
template <class Parse>
void round_trip(const nlohmann::json& body, Parse parse) {
  try {
    const auto message = parse(body);
    if (!(parse(pai::net::to_json(message)) == message)) __builtin_trap();
  } catch (const pai::net::ProtocolError&) {
  }
}

void parse_every_direction(const nlohmann::json& body) {
  round_trip(body, [](const nlohmann::json& b) {
    return pai::net::parse_node_to_coordinator(b, kInstances);
  });
  round_trip(body, [](const nlohmann::json& b) {
    return pai::net::parse_coordinator_to_node(b, kInstances);
  });
  round_trip(body, pai::net::parse_control_request);
  round_trip(body, pai::net::parse_control_reply);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = std::size_t{data[0]} + 1;
  const char* stream = reinterpret_cast<const char*>(data + 1);
  const std::size_t length = size - 1;

  pai::net::FrameDecoder decoder;
  pai::net::ServerHandshake handshake("frame-fuzz-token", "frame-fuzz-job");
  bool handshake_open = true;
  // What a peer that knows the session key can send: the MAC passes, the rest is checked.
  pai::net::SecureChannel channel(kSessionKey, kSessionKey);
  // Every frame's body re-MAC'd in order, so the JSON checks behind the MAC are reached too.
  pai::net::SecureChannel resealed(kSessionKey, kSessionKey);
  std::uint64_t resealed_seq = 0;
  try {
    for (std::size_t at = 0; at < length; at += chunk) {
      decoder.feed(stream + at, std::min(chunk, length - at));
      pai::net::Frame frame;
      while (decoder.next(frame)) {
        if (handshake_open) {
          try {
            handshake.on_frame(frame);
          } catch (const pai::net::ProtocolError&) {
            handshake_open = false;  // the server sends reject() and closes
          }
        }
        try {
          channel.open(frame);
        } catch (const pai::net::ProtocolError&) {
        }
        pai::net::Frame authentic;
        authentic.kind = pai::net::FrameKind::Sealed;
        authentic.seq = ++resealed_seq;
        authentic.body = frame.body;
        authentic.signed_bytes =
            pai::net::header_and_body(authentic.kind, authentic.seq, authentic.body);
        authentic.mac = pai::hmac_sha256(kSessionKey, authentic.signed_bytes);
        try {
          parse_every_direction(resealed.open(authentic));
        } catch (const pai::net::ProtocolError&) {
        }
      }
    }
  } catch (const pai::net::ProtocolError&) {
  }
  return 0;
}
