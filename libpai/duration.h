// Durations as written in specs: "90s", "30m", "2h", "1d", or plain seconds ("45", 45).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pai {

/// Seconds for `text`, or nullopt with `*error` explaining why (empty, bad unit, negative,
/// overflow). Accepts an optional unit suffix s, m, h, d and whole numbers only.
std::optional<std::int64_t> parse_duration(std::string_view text, std::string* error);

/// The shortest exact spelling: 1800 -> "30m", 90 -> "90s", 7200 -> "2h".
std::string format_duration(std::int64_t seconds);

}  // namespace pai
