#include "libpai/quantity.h"

#include <catch2/catch.hpp>
#include <limits>

namespace quantity_test {

namespace {

std::string error_of(std::string_view text) {
  std::string error;
  auto value = pai::parse_quantity(text, &error);
  REQUIRE_FALSE(value.has_value());
  return error;
}

constexpr std::int64_t kGi = 1024ll * 1024 * 1024;

}  // namespace

TEST_CASE("parse_quantity accepts binary - decimal and plain bytes") {
  std::string error;
  CHECK(pai::parse_quantity("64Gi", &error) == 64 * kGi);
  CHECK(pai::parse_quantity("500M", &error) == 500000000);
  CHECK(pai::parse_quantity("1.5Ti", &error) == 1536 * kGi);
  CHECK(pai::parse_quantity("1024", &error) == 1024);
  CHECK(pai::parse_quantity("1Ki", &error) == 1024);
  CHECK(pai::parse_quantity("2k", &error) == 2000);
  CHECK(pai::parse_quantity("2K", &error) == 2000);
  CHECK(pai::parse_quantity("0.5Ki", &error) == 512);
  CHECK(pai::parse_quantity("2.50G", &error) == 2500000000);
  CHECK(pai::parse_quantity("7Ei", &error) == 7 * (1ll << 60));
  CHECK(pai::parse_quantity("0", &error) == 0);
  CHECK(error.empty());
}

TEST_CASE("parse_quantity rejects malformed text with the exact message") {
  CHECK(error_of("12Q") == R"(expected a quantity like 64Gi or 500M, got "12Q")");
  CHECK(error_of("") == R"(expected a quantity like 64Gi or 500M, got "")");
  CHECK(error_of("Gi") == R"(expected a quantity like 64Gi or 500M, got "Gi")");
  CHECK(error_of("-1Gi") == R"(expected a quantity like 64Gi or 500M, got "-1Gi")");
  CHECK(error_of("1.Gi") == R"(expected a quantity like 64Gi or 500M, got "1.Gi")");
  CHECK(error_of(".5Gi") == R"(expected a quantity like 64Gi or 500M, got ".5Gi")");
  CHECK(error_of("1.2.3") == R"(expected a quantity like 64Gi or 500M, got "1.2.3")");
  CHECK(error_of("1.5") == R"(quantity "1.5" is not a whole number of bytes)");
  CHECK(error_of("0.3Ki") == R"(quantity "0.3Ki" is not a whole number of bytes)");
}

TEST_CASE("parse_quantity reports overflow without undefined behaviour") {
  CHECK(error_of("99999999999999999999") == "quantity overflows");
  CHECK(error_of("8Ei") == "quantity overflows");
  CHECK(error_of("7.99999999999999999Ei") ==
        R"(quantity "7.99999999999999999Ei" is not a whole number of bytes)");
  CHECK(error_of("7.9999999999999999999999Ei") ==
        R"(quantity "7.9999999999999999999999Ei" is not a whole number of bytes)");
  CHECK(error_of("9223372036854775807.5") ==
        R"(quantity "9223372036854775807.5" is not a whole number of bytes)");
  CHECK(error_of("9223372036854775.807k1") ==
        R"(expected a quantity like 64Gi or 500M, got "9223372036854775.807k1")");
  CHECK(pai::parse_quantity("7.75Ei", nullptr) == 7 * (1ll << 60) + 3 * (1ll << 58));
  CHECK(error_of("9223372036854775.808k") == "quantity overflows");
}

TEST_CASE("format_quantity picks the shortest exact spelling and round-trips") {
  CHECK(pai::format_quantity(0) == "0");
  CHECK(pai::format_quantity(68719476736) == "64Gi");
  CHECK(pai::format_quantity(500000000) == "500M");
  CHECK(pai::format_quantity(1000) == "1k");
  CHECK(pai::format_quantity(1024) == "1Ki");
  CHECK(pai::format_quantity(1023) == "1023");
  CHECK(pai::format_quantity(1536 * kGi) == "1536Gi");
  for (std::int64_t b :
       std::initializer_list<std::int64_t>{1, 999, 4096, 1500000, 3 * kGi, 1ll << 62, INT64_MAX}) {
    CHECK(pai::parse_quantity(pai::format_quantity(b), nullptr) == b);
  }
}

TEST_CASE("human-readable sizes") {
  CHECK(pai::human_bytes(12) == "12 B");
  CHECK(pai::human_bytes(1536) == "1.5 KiB");
  CHECK(pai::human_bytes(64ll << 30) == "64.0 GiB");
  CHECK(pai::human_bytes(std::numeric_limits<std::int64_t>::max()) == "8.0 EiB");
}

}  // namespace quantity_test
