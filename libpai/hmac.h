// HMAC-SHA256 and SHA-256 over OpenSSL's libcrypto, with the constant-time comparison and hex
// encoding that go with them: the one implementation that the plan seal (plan_seal.h) and the
// coordinator's authentication (launcher/net/auth.h) share.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pai {

/// Bytes of a SHA-256 digest, and so of an HMAC-SHA256.
inline constexpr std::size_t kSha256Bytes = 32;

/// HMAC-SHA256 of `data` under `key`: kSha256Bytes raw bytes. An empty key is a valid key.
/// Throws std::runtime_error when libcrypto fails.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// SHA-256 of `data`: kSha256Bytes raw bytes. Throws std::runtime_error when libcrypto fails.
std::string sha256(std::string_view data);

/// Constant-time comparison (CRYPTO_memcmp); false when the sizes differ.
bool equal_secret(std::string_view a, std::string_view b);

/// `bytes` as lowercase hex, two digits a byte.
std::string to_hex(std::string_view bytes);

}  // namespace pai
