#include "libpai/utf8.h"

#include <catch2/catch.hpp>

namespace utf8_test {

using pai::utf8_sequence_length;

TEST_CASE("utf8_sequence_length measures well-formed sequences") {
  CHECK(utf8_sequence_length("a", 0) == 1);
  CHECK(utf8_sequence_length("\xc3\xa9", 0) == 2);          // é
  CHECK(utf8_sequence_length("\xe2\x82\xac", 0) == 3);      // €
  CHECK(utf8_sequence_length("\xf0\x9f\x98\x80", 0) == 4);  // 😀
  CHECK(utf8_sequence_length("x\xc3\xa9", 1) == 2);
}

TEST_CASE("utf8_sequence_length rejects malformed bytes") {
  CHECK(utf8_sequence_length("\xff", 0) == 0);
  CHECK(utf8_sequence_length("\x80", 0) == 0);              // stray continuation
  CHECK(utf8_sequence_length("\xc0\xaf", 0) == 0);          // overlong '/'
  CHECK(utf8_sequence_length("\xe0\x80\xaf", 0) == 0);      // overlong
  CHECK(utf8_sequence_length("\xed\xa0\x80", 0) == 0);      // surrogate
  CHECK(utf8_sequence_length("\xf4\x90\x80\x80", 0) == 0);  // beyond U+10FFFF
  CHECK(utf8_sequence_length("\xe2\x82", 0) == 0);          // truncated
}

}  // namespace utf8_test
