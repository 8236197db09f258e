#include "launcher/net/message.h"

#include <array>
#include <limits>
#include <utility>

namespace pai::net {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Base64 digit values; -1 for bytes outside the alphabet (including '=').
constexpr std::array<int, 256> make_decode_table() {
  std::array<int, 256> table{};
  for (int& value : table) value = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
  return table;
}
constexpr std::array<int, 256> kDecode = make_decode_table();

}  // namespace

MessageReader::MessageReader(const nlohmann::json& message) : message_(message) {
  auto it = message.is_object() ? message.find("type") : message.end();
  if (it == message.end() || !it->is_string()) {
    throw ProtocolError("message: expected a JSON object with a string \"type\"");
  }
  type_ = it->get<std::string>();
}

MessageReader::MessageReader(const nlohmann::json& object, std::string name)
    : message_(object), type_(std::move(name)) {}

bool MessageReader::has(const char* key) const { return message_.contains(key); }

void MessageReader::fail(const char* key, const std::string& what) const {
  throw field_error(type_, key, what);
}

// Every accessor goes through here, so a missing field reads the same everywhere.
static const nlohmann::json& member(const MessageReader& reader, const nlohmann::json& message,
                                    const char* key) {
  auto it = message.find(key);
  if (it == message.end()) reader.fail(key, "missing");
  return *it;
}

std::string MessageReader::string(const char* key) const {
  const nlohmann::json& value = member(*this, message_, key);
  if (!value.is_string()) fail(key, "expected a string");
  return value.get<std::string>();
}

bool MessageReader::boolean(const char* key) const {
  const nlohmann::json& value = member(*this, message_, key);
  if (!value.is_boolean()) fail(key, "expected a boolean");
  return value.get<bool>();
}

std::int64_t MessageReader::int64(const char* key) const {
  const nlohmann::json& value = member(*this, message_, key);
  if (!value.is_number_integer()) fail(key, "expected an integer");
  // Non-negative integers parse as unsigned; above INT64_MAX they would wrap.
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(key, "integer out of range");
  }
  return value.get<std::int64_t>();
}

int MessageReader::integer(const char* key, int min, int max) const {
  std::int64_t value = int64(key);
  if (value < min || value > max) {
    fail(key, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                  "], got " + std::to_string(value));
  }
  return static_cast<int>(value);
}

std::vector<std::string> MessageReader::strings(const char* key) const {
  const nlohmann::json& value = member(*this, message_, key);
  if (!value.is_array()) fail(key, "expected an array of strings");
  std::vector<std::string> out;
  out.reserve(value.size());
  for (const nlohmann::json& item : value) {
    if (!item.is_string()) fail(key, "expected an array of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::string MessageReader::bytes(const char* key) const {
  std::string text = string(key);
  try {
    return base64_decode(text);
  } catch (const ProtocolError& e) {
    fail(key, e.what());
  }
}

const nlohmann::json& MessageReader::object(const char* key) const {
  const nlohmann::json& value = member(*this, message_, key);
  if (!value.is_object()) fail(key, "expected an object");
  return value;
}

const nlohmann::json& MessageReader::array(const char* key) const {
  const nlohmann::json& value = member(*this, message_, key);
  if (!value.is_array()) fail(key, "expected an array");
  return value;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto byte = [&](std::size_t at) { return static_cast<unsigned char>(bytes[at]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t group = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out.push_back(kAlphabet[(group >> 18) & 63]);
    out.push_back(kAlphabet[(group >> 12) & 63]);
    out.push_back(kAlphabet[(group >> 6) & 63]);
    out.push_back(kAlphabet[group & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t group = byte(i) << 16;
    if (rest == 2) group |= byte(i + 1) << 8;
    out.push_back(kAlphabet[(group >> 18) & 63]);
    out.push_back(kAlphabet[(group >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(group >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    throw ProtocolError("invalid base64: length " + std::to_string(text.size()) +
                        " is not a multiple of 4");
  }
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const std::size_t digits = last ? 4 - padding : 4;
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      int value = 0;
      if (j < digits) {
        value = kDecode[static_cast<unsigned char>(text[i + j])];
        if (value < 0) {
          throw ProtocolError("invalid base64: unexpected character at offset " +
                              std::to_string(i + j));
        }
      }
      group = (group << 6) | static_cast<std::uint32_t>(value);
    }
    out.push_back(static_cast<char>(group >> 16));
    if (digits >= 3) out.push_back(static_cast<char>((group >> 8) & 0xff));
    if (digits == 4) out.push_back(static_cast<char>(group & 0xff));
    // Canonical encodings only: the bits a padded group drops must be zero.
    if ((digits == 2 && (group & 0xffff) != 0) || (digits == 3 && (group & 0xff) != 0)) {
      throw ProtocolError("invalid base64: non-zero padding bits");
    }
  }
  return out;
}

}  // namespace pai::net
