// HMAC-SHA256 and SHA-256 over OpenSSL's libcrypto, with the constant-time comparison and hex
// encoding that go with them: the one implementation that the plan seal (plan_seal.h) and the
// coordinator's authentication (launcher/net/auth.h) share.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_mac_ctx_st;

namespace pai {

/// Bytes of a SHA-256 digest, and so of an HMAC-SHA256.
inline constexpr std::size_t kSha256Bytes = 32;

/// HMAC-SHA256 of `data` under `key`: kSha256Bytes raw bytes. An empty key is a valid key.
/// Throws std::runtime_error when libcrypto fails.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// HMAC-SHA256 under one key, for many messages: the key is set up once, where
/// hmac_sha256() fetches the algorithm and sets the key up on every call (a third of the cost
/// of sealing a heartbeat). A copy has the same key; one object is used by one thread at a
/// time.
class HmacSha256 {
 public:
  /// Throws std::runtime_error when libcrypto fails.
  explicit HmacSha256(std::string_view key);
  HmacSha256(const HmacSha256& other);
  HmacSha256& operator=(const HmacSha256& other);
  HmacSha256(HmacSha256&&) noexcept = default;
  HmacSha256& operator=(HmacSha256&&) noexcept = default;
  ~HmacSha256() = default;
  /// HMAC-SHA256 of `data`: kSha256Bytes raw bytes, equal to hmac_sha256(key, data).
  std::string operator()(std::string_view data);

 private:
  struct Free {
    void operator()(evp_mac_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_mac_ctx_st, Free> ctx_;
};

/// SHA-256 of `data`: kSha256Bytes raw bytes. Throws std::runtime_error when libcrypto fails.
std::string sha256(std::string_view data);

/// Constant-time comparison (CRYPTO_memcmp); false when the sizes differ.
bool equal_secret(std::string_view a, std::string_view b);

/// `bytes` as lowercase hex, two digits a byte.
std::string to_hex(std::string_view bytes);

}  // namespace pai
