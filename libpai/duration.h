// Durations as written in specs: "90s", "30m", "2h", "1d", or plain seconds ("45", 45).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pai {

/// The longest duration pai accepts anywhere (spec fields, plan.json, `ctl hang-interval`,
/// command-line timeouts): 365 days. No timeout, interval, backoff or grace period of a
/// training job needs more, and any count of seconds up to it converts to every clock type the
/// launcher uses (std::chrono nanoseconds reach 292 years) without overflow.
inline constexpr std::int64_t kMaxDurationSeconds = 365 * 86400;

/// Seconds for `text`, or nullopt with `*error` explaining why (empty, bad unit, negative,
/// longer than kMaxDurationSeconds). Accepts an optional unit suffix s, m, h, d and whole
/// numbers only.
std::optional<std::int64_t> parse_duration(std::string_view text, std::string* error);

/// The shortest exact spelling: 1800 -> "30m", 90 -> "90s", 7200 -> "2h".
std::string format_duration(std::int64_t seconds);

/// A duration for people, rounded down: "850 ms", "4.2 s", "3m 05s", "2h 04m", "3d 02h".
std::string human_duration(std::int64_t ms);

}  // namespace pai
