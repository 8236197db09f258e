#include "libpai/hmac.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include <limits>
#include <stdexcept>

namespace pai {

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (key.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::runtime_error("HMAC key too long");
  }
  // OpenSSL treats a null key as "reuse the previous one"; an empty key needs a real pointer.
  static const unsigned char kEmpty = 0;
  const void* key_data = key.empty() ? &kEmpty : static_cast<const void*>(key.data());
  if (HMAC(EVP_sha256(), key_data, static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
           &size) == nullptr ||
      size != kSha256Bytes) {
    throw std::runtime_error("HMAC-SHA256 failed in libcrypto");
  }
  return std::string(reinterpret_cast<const char*>(out), size);
}

void HmacSha256::Free::operator()(evp_mac_ctx_st* ctx) const { EVP_MAC_CTX_free(ctx); }

HmacSha256::HmacSha256(std::string_view key) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac != nullptr) ctx_.reset(EVP_MAC_CTX_new(mac));
  EVP_MAC_free(mac);  // the context holds its own reference
  static const unsigned char kEmpty = 0;
  const auto* key_data =
      key.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key.data());
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
                         OSSL_PARAM_construct_end()};
  if (!ctx_ || EVP_MAC_init(ctx_.get(), key_data, key.size(), params) != 1) {
    throw std::runtime_error("HMAC-SHA256 set-up failed in libcrypto");
  }
}

HmacSha256::HmacSha256(const HmacSha256& other) : ctx_(EVP_MAC_CTX_dup(other.ctx_.get())) {
  if (!ctx_) throw std::runtime_error("HMAC-SHA256 copy failed in libcrypto");
}

HmacSha256& HmacSha256::operator=(const HmacSha256& other) {
  if (this != &other) *this = HmacSha256(other);
  return *this;
}

std::string HmacSha256::operator()(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  std::size_t size = 0;
  // A null key restarts the MAC with the key already set up.
  if (EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr) != 1 ||
      EVP_MAC_update(ctx_.get(), reinterpret_cast<const unsigned char*>(data.data()),
                     data.size()) != 1 ||
      EVP_MAC_final(ctx_.get(), out, &size, sizeof out) != 1 || size != kSha256Bytes) {
    throw std::runtime_error("HMAC-SHA256 failed in libcrypto");
  }
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::string sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), out, &size, EVP_sha256(), nullptr) != 1 ||
      size != kSha256Bytes) {
    throw std::runtime_error("SHA-256 digest failed in libcrypto");
  }
  return std::string(reinterpret_cast<const char*>(out), size);
}

bool equal_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (char c : bytes) {
    auto byte = static_cast<unsigned char>(c);
    out.push_back(kDigits[byte >> 4]);
    out.push_back(kDigits[byte & 0xf]);
  }
  return out;
}

}  // namespace pai
