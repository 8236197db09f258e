// A whole decimal number read from a command's argument, within the bounds it may take.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace pai {

/// `text` as a whole decimal number in [low, high] ("-" allowed before it); nullopt when it is
/// anything else: empty, a sign alone, other characters, out of range or beyond long's.
inline std::optional<long> parse_whole_number(std::string_view text, long low, long high) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    return std::nullopt;
  }
  return value;
}

}  // namespace pai
