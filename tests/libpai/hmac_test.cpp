#include "libpai/hmac.h"

#include <catch2/catch.hpp>
#include <string>

namespace hmac_test {

TEST_CASE("hmac_sha256 matches RFC 4231 test cases 1 and 2") {
  CHECK(pai::to_hex(pai::hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(pai::to_hex(pai::hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // An empty key is a key, not "the previous one" (OpenSSL's meaning of a null key).
  CHECK(pai::to_hex(pai::hmac_sha256("", "")) ==
        "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

TEST_CASE("HmacSha256 keeps its key across messages and equals hmac_sha256") {
  pai::HmacSha256 jefe("Jefe");
  for (int round = 0; round < 3; ++round) {
    CHECK(pai::to_hex(jefe("what do ya want for nothing?")) ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  }
  pai::HmacSha256 empty("");
  CHECK(empty("") == pai::hmac_sha256("", ""));
  // A key longer than SHA-256's block is hashed first, as hmac_sha256 does it.
  const std::string long_key(200, 'k');
  pai::HmacSha256 keyed(long_key);
  std::string message;
  for (int size = 0; size < 300; size += 37) {
    message.append(37, static_cast<char>('a' + size % 26));
    CHECK(keyed(message) == pai::hmac_sha256(long_key, message));
  }
  // Copied or moved, it still has its key.
  pai::HmacSha256 copy = keyed;
  CHECK(copy(message) == pai::hmac_sha256(long_key, message));
  pai::HmacSha256 moved = std::move(keyed);
  CHECK(moved(message) == pai::hmac_sha256(long_key, message));
  copy = jefe;
  CHECK(copy("what do ya want for nothing?") == jefe("what do ya want for nothing?"));
}

TEST_CASE("sha256 matches the FIPS 180-2 examples") {
  CHECK(pai::to_hex(pai::sha256("abc")) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(pai::to_hex(pai::sha256("")) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(pai::sha256("x").size() == pai::kSha256Bytes);
}

TEST_CASE("equal_secret compares content and size") {
  CHECK(pai::equal_secret("abc", "abc"));
  CHECK_FALSE(pai::equal_secret("abc", "abd"));
  CHECK_FALSE(pai::equal_secret("abc", "abcd"));
  CHECK(pai::equal_secret("", ""));
}

TEST_CASE("to_hex writes two lowercase digits a byte") {
  CHECK(pai::to_hex(std::string("\x00\xff\x10\xab", 4)) == "00ff10ab");
  CHECK(pai::to_hex("").empty());
}

}  // namespace hmac_test
