// Strict reading of protocol messages (docs/protocol.md): every field access checks presence
// and type and throws net::ProtocolError naming the message type and the field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/net/frame.h"

namespace pai::net {

/// A view of one received message (a JSON object with a string "type").
class MessageReader {
 public:
  /// Throws ProtocolError unless `message` is an object with a string "type".
  explicit MessageReader(const nlohmann::json& message);
  /// An object inside a message (which the caller has checked is an object), read as strictly
  /// as a message: its errors are named `name` ("exited.status: code: missing").
  MessageReader(const nlohmann::json& object, std::string name);
  const std::string& type() const { return type_; }
  bool has(const char* key) const;
  std::string string(const char* key) const;
  bool boolean(const char* key) const;
  std::int64_t int64(const char* key) const;
  /// An integer in [min, max].
  int integer(const char* key, int min, int max) const;
  std::vector<std::string> strings(const char* key) const;
  /// Base64 member decoded; ProtocolError for invalid base64.
  std::string bytes(const char* key) const;
  const nlohmann::json& object(const char* key) const;
  const nlohmann::json& array(const char* key) const;
  /// ProtocolError "<type>: <key>: <what>".
  [[noreturn]] void fail(const char* key, const std::string& what) const;

 private:
  const nlohmann::json& message_;
  std::string type_;
};

std::string base64_encode(std::string_view bytes);
/// Throws ProtocolError for invalid input.
std::string base64_decode(std::string_view text);

}  // namespace pai::net
