// UTF-8 decoding helper shared by the diagnostics renderer, message quoting and the launcher's
// terminal lines.
#pragma once

#include <cstddef>
#include <string_view>

namespace pai {

/// Length in bytes (1-4) of the well-formed UTF-8 sequence starting at s[i], or 0 when the
/// bytes there are not one (stray continuation byte, overlong form, surrogate, truncated).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

}  // namespace pai
