#include "libpai/quantity.h"

#include <array>
#include <cstdio>

namespace pai {
namespace {

struct Suffix {
  std::string_view text;
  std::int64_t bytes;
};

constexpr std::int64_t kKi = 1024;
constexpr std::int64_t kK = 1000;

// Binary before decimal at equal size, largest first within each family, so
// format_quantity prefers the shortest spelling and binary on a tie.
constexpr std::array<Suffix, 13> kSuffixes = {{
    {"Ei", kKi* kKi* kKi* kKi* kKi* kKi},
    {"Pi", kKi* kKi* kKi* kKi* kKi},
    {"Ti", kKi* kKi* kKi* kKi},
    {"Gi", kKi* kKi* kKi},
    {"Mi", kKi* kKi},
    {"Ki", kKi},
    {"E", kK* kK* kK* kK* kK* kK},
    {"P", kK* kK* kK* kK* kK},
    {"T", kK* kK* kK* kK},
    {"G", kK* kK* kK},
    {"M", kK* kK},
    {"k", kK},
    {"K", kK},
}};

// Fraction digits beyond this cannot give whole bytes for any suffix we accept in practice,
// and keeping it small keeps the arithmetic below exact in 128 bits.
constexpr std::size_t kMaxFractionDigits = 18;

std::optional<std::int64_t> fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return std::nullopt;
}

std::string expected_message(std::string_view text) {
  return "expected a quantity like 64Gi or 500M, got \"" + std::string(text) + "\"";
}

bool all_digits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_quantity(std::string_view text, std::string* error) {
  std::string_view number = text;
  std::int64_t multiplier = 1;
  for (const Suffix& suffix : kSuffixes) {
    if (number.size() > suffix.text.size() && number.ends_with(suffix.text)) {
      multiplier = suffix.bytes;
      number.remove_suffix(suffix.text.size());
      break;
    }
  }
  std::string_view whole = number;
  std::string_view fraction;
  if (auto dot = number.find('.'); dot != std::string_view::npos) {
    whole = number.substr(0, dot);
    fraction = number.substr(dot + 1);
    if (fraction.empty()) return fail(error, expected_message(text));
  }
  if (whole.empty() || !all_digits(whole) || !all_digits(fraction)) {
    return fail(error, expected_message(text));
  }

  std::int64_t bytes = 0;
  for (char c : whole) {
    if (__builtin_mul_overflow(bytes, 10, &bytes) ||
        __builtin_add_overflow(bytes, c - '0', &bytes)) {
      return fail(error, "quantity overflows");
    }
  }
  if (__builtin_mul_overflow(bytes, multiplier, &bytes)) return fail(error, "quantity overflows");

  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (fraction.empty()) return bytes;
  if (fraction.size() > kMaxFractionDigits) {
    return fail(error, "quantity \"" + std::string(text) + "\" is not a whole number of bytes");
  }
  __extension__ using Wide = unsigned __int128;
  Wide numerator = 0;
  Wide denominator = 1;
  for (char c : fraction) {
    numerator = numerator * 10 + static_cast<unsigned>(c - '0');
    denominator *= 10;
  }
  numerator *= static_cast<Wide>(multiplier);
  if (numerator % denominator != 0) {
    return fail(error, "quantity \"" + std::string(text) + "\" is not a whole number of bytes");
  }
  // numerator / denominator < multiplier <= 2^60, so the narrowing is exact.
  auto extra = static_cast<std::int64_t>(numerator / denominator);
  if (__builtin_add_overflow(bytes, extra, &bytes)) return fail(error, "quantity overflows");
  return bytes;
}

std::string format_quantity(std::int64_t bytes) {
  std::string best = std::to_string(bytes);
  if (bytes == 0) return best;
  for (const Suffix& suffix : kSuffixes) {
    if (suffix.text == "K") continue;  // "k" is the canonical decimal kilo
    if (bytes % suffix.bytes != 0) continue;
    std::string candidate = std::to_string(bytes / suffix.bytes) + std::string(suffix.text);
    if (candidate.size() < best.size()) best = std::move(candidate);
  }
  return best;
}

std::string human_bytes(std::int64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  }
  return text;
}

}  // namespace pai
