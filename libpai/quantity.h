// Quantities as Kubernetes writes them: "64Gi", "500M", "1.5Ti", plain bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pai {

/// Bytes for `text`, or nullopt with `*error` explaining why. Binary suffixes Ki Mi Gi Ti
/// Pi Ei, decimal k K M G T P E; a decimal fraction is allowed when the result is whole.
std::optional<std::int64_t> parse_quantity(std::string_view text, std::string* error);

/// The shortest exact spelling: 68719476736 -> "64Gi", 500000000 -> "500M".
std::string format_quantity(std::int64_t bytes);

/// "1.5 TiB", "512 MiB", "12 B": a size for people, rounded to one decimal.
std::string human_bytes(std::int64_t bytes);

}  // namespace pai
