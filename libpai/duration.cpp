#include "libpai/duration.h"

#include <array>
#include <cstdio>

namespace pai {
namespace {

struct Unit {
  char suffix;
  std::int64_t seconds;
};

// Largest first, so format_duration picks the shortest exact spelling.
constexpr std::array<Unit, 4> kUnits = {{{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}}};

std::optional<std::int64_t> fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return std::nullopt;
}

std::string expected_message(std::string_view text) {
  return "expected a duration like 90s, 30m, 2h or seconds, got \"" + std::string(text) + "\"";
}

}  // namespace

std::optional<std::int64_t> parse_duration(std::string_view text, std::string* error) {
  if (!text.empty() && text.front() == '-') {
    return fail(error, "duration must not be negative, got \"" + std::string(text) + "\"");
  }
  std::int64_t multiplier = 1;
  std::string_view digits = text;
  if (!digits.empty()) {
    for (const Unit& unit : kUnits) {
      if (digits.back() == unit.suffix) {
        multiplier = unit.seconds;
        digits.remove_suffix(1);
        break;
      }
    }
  }
  if (digits.empty()) {
    return fail(error, expected_message(text));
  }
  std::int64_t value = 0;
  bool overflow = false;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return fail(error, expected_message(text));
    }
    // Keep scanning after an overflow so "999...9x" still reports the bad character.
    if (!overflow && (__builtin_mul_overflow(value, 10, &value) ||
                      __builtin_add_overflow(value, c - '0', &value))) {
      overflow = true;
    }
  }
  if (overflow || __builtin_mul_overflow(value, multiplier, &value) ||
      value > kMaxDurationSeconds) {
    return fail(error, "duration must be at most " + format_duration(kMaxDurationSeconds) +
                           ", got \"" + std::string(text) + "\"");
  }
  return value;
}

std::string format_duration(std::int64_t seconds) {
  if (seconds == 0) return "0s";
  for (const Unit& unit : kUnits) {
    if (seconds % unit.seconds == 0) return std::to_string(seconds / unit.seconds) + unit.suffix;
  }
  return std::to_string(seconds) + "s";
}

std::string human_duration(std::int64_t ms) {
  char buf[48];
  if (ms < 1000) {
    std::snprintf(buf, sizeof buf, "%lld ms", static_cast<long long>(ms));
  } else if (ms < 60000) {
    std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms / 100) / 10.0);
  } else if (ms < 3600000) {
    std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(ms / 60000),
                  static_cast<long long>(ms / 1000 % 60));
  } else if (ms < 86400000) {
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", static_cast<long long>(ms / 3600000),
                  static_cast<long long>(ms / 60000 % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lldd %02lldh", static_cast<long long>(ms / 86400000),
                  static_cast<long long>(ms / 3600000 % 24));
  }
  return buf;
}

}  // namespace pai
