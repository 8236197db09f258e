#include "compiler/render/token.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>
#include <string>

#include "compiler/render/atomic_file.h"
#include "libpai/bounded_file.h"

namespace pai {
namespace {

constexpr std::size_t kTokenBytes = 32;
constexpr std::size_t kMinTokenHexDigits = 32;
// A token is 64 hex digits; no token file has a reason to be bigger.
constexpr std::size_t kMaxTokenFileBytes = 4096;

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

std::string generate_token() {
  std::array<unsigned char, kTokenBytes> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("cannot generate the job token: OpenSSL RAND_bytes failed");
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * bytes.size());
  for (unsigned char b : bytes) {
    token.push_back(kDigits[b >> 4]);
    token.push_back(kDigits[b & 0xf]);
  }
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return token;
}

std::string read_token_file(const std::string& path) {
  std::string token = read_bounded_regular_file(path, kMaxTokenFileBytes, "token file");
  // A file written by hand or by `echo` ends with a newline.
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  const auto bad = [&](const char* why) {
    OPENSSL_cleanse(token.data(), token.size());
    return std::runtime_error("invalid token file '" + path + "': " + why);
  };
  if (token.empty()) throw bad("it is empty");
  for (char c : token) {
    if (!is_hex(c)) throw bad("expected hexadecimal digits only");
  }
  if (token.size() < kMinTokenHexDigits) throw bad("expected at least 32 hexadecimal digits");
  return token;
}

void write_token_file(const std::string& path, const std::string& token) {
  write_file_atomic(path, token, FileAccess::Private);
}

}  // namespace pai
