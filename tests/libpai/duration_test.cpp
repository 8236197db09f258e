#include "libpai/duration.h"

#include <catch2/catch.hpp>

namespace duration_test {

namespace {

std::string error_of(std::string_view text) {
  std::string error;
  auto value = pai::parse_duration(text, &error);
  REQUIRE_FALSE(value.has_value());
  return error;
}

}  // namespace

TEST_CASE("parse_duration accepts units and plain seconds") {
  std::string error;
  CHECK(pai::parse_duration("90s", &error) == 90);
  CHECK(pai::parse_duration("30m", &error) == 1800);
  CHECK(pai::parse_duration("2h", &error) == 7200);
  CHECK(pai::parse_duration("1d", &error) == 86400);
  CHECK(pai::parse_duration("45", &error) == 45);
  CHECK(pai::parse_duration("0", &error) == 0);
  CHECK(pai::parse_duration("0s", &error) == 0);
  CHECK(pai::parse_duration("365d", &error) == 31536000);
  CHECK(error.empty());
}

TEST_CASE("parse_duration rejects malformed text with the exact message") {
  CHECK(error_of("5x") == R"(expected a duration like 90s, 30m, 2h or seconds, got "5x")");
  CHECK(error_of("") == R"(expected a duration like 90s, 30m, 2h or seconds, got "")");
  CHECK(error_of("s") == R"(expected a duration like 90s, 30m, 2h or seconds, got "s")");
  CHECK(error_of("1.5h") == R"(expected a duration like 90s, 30m, 2h or seconds, got "1.5h")");
  CHECK(error_of(" 5s") == R"(expected a duration like 90s, 30m, 2h or seconds, got " 5s")");
  CHECK(error_of("1h30m") == R"(expected a duration like 90s, 30m, 2h or seconds, got "1h30m")");
  CHECK(error_of("-5s") == R"(duration must not be negative, got "-5s")");
}

TEST_CASE("parse_duration refuses more than 365 days, overflow included, without UB") {
  CHECK(pai::kMaxDurationSeconds == 31536000);
  CHECK(pai::parse_duration("365d", nullptr) == pai::kMaxDurationSeconds);
  CHECK(pai::parse_duration("31536000", nullptr) == pai::kMaxDurationSeconds);
  CHECK(error_of("31536001") == R"(duration must be at most 365d, got "31536001")");
  CHECK(error_of("366d") == R"(duration must be at most 365d, got "366d")");
  CHECK(error_of("8761h") == R"(duration must be at most 365d, got "8761h")");
  CHECK(error_of("99999999999999999999h") ==
        R"(duration must be at most 365d, got "99999999999999999999h")");
  CHECK(error_of("9223372036854775807") ==
        R"(duration must be at most 365d, got "9223372036854775807")");
  CHECK(error_of("9223372036854775808") ==
        R"(duration must be at most 365d, got "9223372036854775808")");
  CHECK(error_of("9223372036854775807s1") ==
        R"(expected a duration like 90s, 30m, 2h or seconds, got "9223372036854775807s1")");
  CHECK(error_of("106751991167301d") == R"(duration must be at most 365d, got "106751991167301d")");
  CHECK(error_of("99999999999999999999x") ==
        R"(expected a duration like 90s, 30m, 2h or seconds, got "99999999999999999999x")");
}

TEST_CASE("parse_duration tolerates a null error pointer") {
  CHECK_FALSE(pai::parse_duration("bad", nullptr).has_value());
}

TEST_CASE("format_duration picks the shortest exact unit and round-trips") {
  CHECK(pai::format_duration(0) == "0s");
  CHECK(pai::format_duration(90) == "90s");
  CHECK(pai::format_duration(1800) == "30m");
  CHECK(pai::format_duration(7200) == "2h");
  CHECK(pai::format_duration(86400) == "1d");
  CHECK(pai::format_duration(3601) == "3601s");
  for (std::int64_t s : {1, 59, 60, 61, 3600, 5400, 86399, 172800, 31535999}) {
    CHECK(pai::parse_duration(pai::format_duration(s), nullptr) == s);
  }
}

TEST_CASE("human_duration reads like a person wrote it - rounded down") {
  CHECK(pai::human_duration(0) == "0 ms");
  CHECK(pai::human_duration(850) == "850 ms");
  CHECK(pai::human_duration(4200) == "4.2 s");
  CHECK(pai::human_duration(4299) == "4.2 s");
  CHECK(pai::human_duration(59999) == "59.9 s");
  CHECK(pai::human_duration(185000) == "3m 05s");
  CHECK(pai::human_duration(7440000) == "2h 04m");
  CHECK(pai::human_duration(266400000) == "3d 02h");
  CHECK(pai::human_duration(std::int64_t{1} << 62) == "53375995583d 15h");
}

}  // namespace duration_test
