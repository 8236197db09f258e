// Text from ranks and users shown in pai's own diagnostic lines: what a terminal would act on is
// escaped, so a rank's output cannot move the cursor, clear the screen or forge a line of pai's.
#pragma once

#include <string>
#include <string_view>

namespace pai {

/// `text` with every byte a terminal could act on written as `\xHH`: control characters
/// (newline and carriage return included, tab kept), DEL, the C1 controls U+0080-U+009F, and
/// bytes that are not well-formed UTF-8. Other UTF-8 passes unchanged, so does a backslash.
std::string terminal_safe(std::string_view text);

}  // namespace pai
