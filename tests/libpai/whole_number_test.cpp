#include "libpai/whole_number.h"

#include <catch2/catch.hpp>

namespace whole_number_test {

using pai::parse_whole_number;

TEST_CASE("a whole number within its bounds is read") {
  CHECK(parse_whole_number("0", 0, 10) == 0L);
  CHECK(parse_whole_number("10", 0, 10) == 10L);
  CHECK(parse_whole_number("-3", -5, 5) == -3L);
}

TEST_CASE("anything but a whole number within its bounds is refused") {
  for (const char* text : {"", "-", "+1", " 1", "1 ", "1x", "0x10", "1.0", "11", "-1",
                           "99999999999999999999999", "-99999999999999999999999"}) {
    INFO(text);
    CHECK_FALSE(parse_whole_number(text, 0, 10).has_value());
  }
}

}  // namespace whole_number_test
