// `pai-launch status --watch` on a terminal: each refresh redraws the screen in place, like
// watch(1), instead of scrolling a new table under the last one.
#pragma once

#include <string>
#include <string_view>

namespace pai::launcher {

/// `text` as one frame drawn over the previous one: cursor home, every line cleared to its
/// end after its text, and whatever the previous frame had below the last line cleared. A
/// last line without a newline is drawn as if it had one.
std::string in_place_frame(std::string_view text);

}  // namespace pai::launcher
