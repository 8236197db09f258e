#include "launcher/coordinator/peer_address.h"

#include <catch2/catch.hpp>

namespace peer_address_test {

using pai::launcher::coordinator::numeric_address;

TEST_CASE("numeric addresses are written canonically") {
  CHECK(numeric_address("10.0.0.1") == "10.0.0.1");
  CHECK(numeric_address("fe80:0:0::1") == "fe80::1");
  CHECK(numeric_address("FE80::1") == "fe80::1");
}

TEST_CASE("an IPv4-mapped IPv6 address reads as its IPv4 address") {
  CHECK(numeric_address("::ffff:10.0.0.1") == "10.0.0.1");
}

TEST_CASE("host names and malformed addresses are not numeric") {
  CHECK_FALSE(numeric_address("gpu-001").has_value());
  CHECK_FALSE(numeric_address("10.0.0.256").has_value());
  CHECK_FALSE(numeric_address("").has_value());
}

}  // namespace peer_address_test
