#include "launcher/net/auth.h"

#include <openssl/rand.h>

#include <chrono>
#include <stdexcept>

#include "libpai/hmac.h"

namespace pai::net {
namespace {

using nlohmann::json;

constexpr std::size_t kNonceBytes = 32;
constexpr std::size_t kMaxNodeName = 255;
// Handshake text quoted back in errors is cut here: the peer is not yet trusted and its
// fields end up in logs and in the reject frame.
constexpr std::size_t kMaxQuoted = 64;
constexpr std::size_t kMaxRejectReason = 1024;

// Peer-supplied text for an error message: JSON-quoted (so control characters cannot forge
// log lines) and cut to kMaxQuoted bytes.
std::string peer_text(std::string_view text) {
  std::string cut(text.substr(0, kMaxQuoted));
  std::string out = json(cut).dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kMaxQuoted) out += "...";
  return out;
}

const char* kind_name(FrameKind kind) {
  switch (kind) {
    case FrameKind::Hello:
      return "hello";
    case FrameKind::Challenge:
      return "challenge";
    case FrameKind::Auth:
      return "auth";
    case FrameKind::Welcome:
      return "welcome";
    case FrameKind::Reject:
      return "reject";
    case FrameKind::Sealed:
      return "sealed";
  }
  return "unknown";
}

// Decodes exactly `bytes` bytes of hex (either case); nullopt for anything else.
std::optional<std::string> from_hex(std::string_view text, std::size_t bytes) {
  if (text.size() != 2 * bytes) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i) {
    int high = digit(text[2 * i]);
    int low = digit(text[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out[i] = static_cast<char>(high * 16 + low);
  }
  return out;
}

// The body of a handshake frame: a JSON object, else ProtocolError naming the frame.
json parse_object(const Frame& frame) {
  json body;
  try {
    body = json::parse(frame.body);
  } catch (const json::exception& e) {
    throw ProtocolError(std::string(kind_name(frame.kind)) + ": invalid JSON: " + e.what());
  }
  if (!body.is_object()) {
    throw ProtocolError(std::string(kind_name(frame.kind)) + ": expected a JSON object");
  }
  return body;
}

std::string string_field(const json& body, FrameKind kind, const char* key) {
  auto it = body.find(key);
  if (it == body.end()) {
    throw ProtocolError(std::string(kind_name(kind)) + ": " + key + ": missing");
  }
  if (!it->is_string()) {
    throw ProtocolError(std::string(kind_name(kind)) + ": " + key + ": expected a string");
  }
  return it->get<std::string>();
}

// A nonce or proof field: 32 bytes as 64 hex characters, returned as raw bytes.
std::string hex_field(const json& body, FrameKind kind, const char* key) {
  std::string text = string_field(body, kind, key);
  std::optional<std::string> bytes = from_hex(text, kNonceBytes);
  if (!bytes) {
    throw ProtocolError(std::string(kind_name(kind)) + ": " + key +
                        ": expected 64 hexadecimal characters");
  }
  return *bytes;
}

// Handshake frames carry sequence number 0 and come in a fixed order.
void expect_frame(const Frame& frame, FrameKind kind, const char* stage) {
  if (frame.kind != kind) {
    throw ProtocolError(std::string("unexpected ") + kind_name(frame.kind) + " frame " + stage +
                        " (expected " + kind_name(kind) + ")");
  }
  if (frame.seq != 0) {
    throw ProtocolError(std::string(kind_name(kind)) + ": sequence number " +
                        std::to_string(frame.seq) + ", expected 0");
  }
}

bool valid_node_name(std::string_view node) {
  if (node.empty() || node.size() > kMaxNodeName) return false;
  for (char c : node) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

std::string server_proof(std::string_view token, std::string_view client_nonce,
                         std::string_view server_nonce, std::string_view job) {
  std::string text = "pai-server\n";
  text.append(client_nonce).append("\n").append(server_nonce).append("\n").append(job);
  return hmac_sha256(token, text);
}

std::string client_proof(std::string_view token, std::string_view server_nonce,
                         std::string_view client_nonce, std::string_view job,
                         const PeerClaim& claim) {
  std::string text = "pai-client\n";
  text.append(server_nonce).append("\n").append(client_nonce).append("\n").append(job);
  text.append("\n").append(claim.peer).append("\n").append(claim.node);
  return hmac_sha256(token, text);
}

// Session key of one direction; `label` is "pai-c2s" or "pai-s2c".
std::string session_key(std::string_view token, const char* label, std::string_view client_nonce,
                        std::string_view server_nonce) {
  std::string text = label;
  text.append("\n").append(client_nonce).append("\n").append(server_nonce);
  return hmac_sha256(token, text);
}

std::string handshake_frame(FrameKind kind, const json& body) {
  return encode_frame(kind, 0, body.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

std::string random_nonce() {
  unsigned char bytes[kNonceBytes];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    throw std::runtime_error(
        "RAND_bytes failed: the system's random number generator is unavailable");
  }
  return to_hex(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

SecureChannel::SecureChannel(std::string send_key, std::string receive_key)
    : send_mac_(send_key), receive_mac_(receive_key) {}

std::string SecureChannel::seal(const nlohmann::json& message) {
  // Text taken from logs (failure summaries) may hold invalid UTF-8; it is replaced by U+FFFD
  // rather than failing the send.
  std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string frame = header_and_body(FrameKind::Sealed, sent_ + 1, body);
  frame += send_mac_(frame);
  ++sent_;
  return frame;
}

nlohmann::json SecureChannel::open(const Frame& frame) {
  if (frame.kind != FrameKind::Sealed) {
    throw ProtocolError(std::string("unexpected ") + kind_name(frame.kind) +
                        " frame after the handshake");
  }
  if (frame.seq != received_ + 1) {
    throw ProtocolError("sealed frame with sequence number " + std::to_string(frame.seq) +
                        ", expected " + std::to_string(received_ + 1) +
                        " (replayed, reordered or lost frame)");
  }
  if (!equal_secret(receive_mac_(frame.signed_bytes), frame.mac)) {
    throw ProtocolError("sealed frame " + std::to_string(frame.seq) +
                        ": MAC does not verify (altered or from another connection)");
  }
  ++received_;
  json body;
  try {
    body = json::parse(frame.body);
  } catch (const json::exception& e) {
    throw ProtocolError("message " + std::to_string(frame.seq) + ": invalid JSON: " + e.what());
  }
  auto type = body.is_object() ? body.find("type") : body.end();
  if (type == body.end() || !type->is_string()) {
    throw ProtocolError("message " + std::to_string(frame.seq) +
                        ": expected a JSON object with a string \"type\"");
  }
  return body;
}

Hello parse_hello(const Frame& frame, const std::string& job) {
  expect_frame(frame, FrameKind::Hello, "to start the handshake");
  json body = parse_object(frame);
  std::string claimed_job = string_field(body, FrameKind::Hello, "job");
  if (claimed_job != job) {
    throw ProtocolError("hello: job " + peer_text(claimed_job) + " is not this coordinator's job " +
                        peer_text(job));
  }
  std::string peer = string_field(body, FrameKind::Hello, "peer");
  if (peer != "launcher" && peer != "control") {
    throw ProtocolError("hello: peer: expected \"launcher\" or \"control\", got " +
                        peer_text(peer));
  }
  std::string node = string_field(body, FrameKind::Hello, "node");
  if (!valid_node_name(node)) {
    throw ProtocolError("hello: node: expected 1 to 255 visible ASCII characters, got " +
                        peer_text(node));
  }
  std::string nonce = string_field(body, FrameKind::Hello, "nonce");
  hex_field(body, FrameKind::Hello, "nonce");
  // Optional (launchers before it do not send it); a bad one is the peer's garbage.
  std::int64_t started = 0;
  if (const auto it = body.find("started"); it != body.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0) {
      throw ProtocolError("hello: started: expected ms since 1970, got " + peer_text(it->dump()));
    }
    started = it->get<std::int64_t>();
  }
  return Hello{PeerClaim{std::move(peer), std::move(node)}, std::move(nonce), started};
}

std::int64_t process_started_unix_ms() {
  static const std::int64_t started = std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count();
  return started;
}

ServerHandshake::ServerHandshake(std::string token, std::string job)
    : token_(std::move(token)), job_(std::move(job)) {}

std::string ServerHandshake::on_frame(const Frame& frame) {
  if (done()) {
    throw ProtocolError(std::string("unexpected ") + kind_name(frame.kind) +
                        " frame after the handshake");
  }
  if (client_nonce_.empty()) {
    Hello hello = parse_hello(frame, job_);
    claim_ = std::move(hello.claim);
    client_nonce_ = std::move(hello.nonce);
    server_nonce_ = random_nonce();
    json challenge = {{"nonce", server_nonce_},
                      {"proof", to_hex(server_proof(token_, client_nonce_, server_nonce_, job_))}};
    return handshake_frame(FrameKind::Challenge, challenge);
  }
  expect_frame(frame, FrameKind::Auth, "after the challenge");
  json body = parse_object(frame);
  std::string proof = hex_field(body, FrameKind::Auth, "proof");
  if (!equal_secret(proof, client_proof(token_, server_nonce_, client_nonce_, job_, claim_))) {
    throw ProtocolError("authentication failed: the client does not know the job token");
  }
  channel_.emplace(session_key(token_, "pai-s2c", client_nonce_, server_nonce_),
                   session_key(token_, "pai-c2s", client_nonce_, server_nonce_));
  return handshake_frame(FrameKind::Welcome, json::object());
}

std::string ServerHandshake::reject(const std::string& reason) {
  std::string text = reason.substr(0, kMaxRejectReason);
  return handshake_frame(FrameKind::Reject, json{{"reason", text}});
}

ClientHandshake::ClientHandshake(std::string token, std::string job, PeerClaim claim)
    : token_(std::move(token)), job_(std::move(job)), claim_(std::move(claim)) {}

std::string ClientHandshake::hello() {
  if (!client_nonce_.empty()) throw std::logic_error("ClientHandshake::hello() called twice");
  client_nonce_ = random_nonce();
  json body = {{"job", job_},
               {"peer", claim_.peer},
               {"node", claim_.node},
               {"nonce", client_nonce_},
               {"started", process_started_unix_ms()}};
  return handshake_frame(FrameKind::Hello, body);
}

std::string ClientHandshake::on_frame(const Frame& frame) {
  if (welcomed_) {
    throw ProtocolError(std::string("unexpected ") + kind_name(frame.kind) +
                        " frame after the handshake");
  }
  if (client_nonce_.empty()) {
    throw ProtocolError(std::string("unexpected ") + kind_name(frame.kind) +
                        " frame before hello was sent");
  }
  // The coordinator may refuse at any step (wrong job, bad proof, too many connections).
  if (frame.kind == FrameKind::Reject) {
    expect_frame(frame, FrameKind::Reject, "");
    json body = parse_object(frame);
    std::string reason = string_field(body, FrameKind::Reject, "reason");
    throw ProtocolError("rejected by the coordinator: " + reason.substr(0, kMaxRejectReason));
  }
  if (!channel_) {
    expect_frame(frame, FrameKind::Challenge, "after hello");
    json body = parse_object(frame);
    std::string server_nonce = string_field(body, FrameKind::Challenge, "nonce");
    hex_field(body, FrameKind::Challenge, "nonce");
    std::string proof = hex_field(body, FrameKind::Challenge, "proof");
    if (!equal_secret(proof, server_proof(token_, client_nonce_, server_nonce, job_))) {
      throw ProtocolError("the coordinator does not know the job token");
    }
    channel_.emplace(session_key(token_, "pai-c2s", client_nonce_, server_nonce),
                     session_key(token_, "pai-s2c", client_nonce_, server_nonce));
    json auth = {
        {"proof", to_hex(client_proof(token_, server_nonce, client_nonce_, job_, claim_))}};
    return handshake_frame(FrameKind::Auth, auth);
  }
  expect_frame(frame, FrameKind::Welcome, "after auth");
  parse_object(frame);
  welcomed_ = true;
  return {};
}

}  // namespace pai::net
