#include "launcher/logs/log_tail.h"

namespace pai::launcher {

TailStart tail_start(std::string_view window, std::int64_t window_offset, int lines) {
  const auto at = [&](std::size_t index) {
    return TailStart{window_offset + static_cast<std::int64_t>(index), false};
  };
  if (lines == 0) return at(window.size());
  if (window.empty()) return at(0);
  // The newline ending the last line does not start another one.
  std::size_t end = window.size();
  if (end > 0 && window[end - 1] == '\n') --end;
  int seen = 0;  // lines known to start inside the window
  std::size_t first_start = 0;
  while (end > 0) {
    const std::size_t nl = window.rfind('\n', end - 1);
    if (nl == std::string_view::npos) break;
    ++seen;
    first_start = nl + 1;
    if (seen == lines) return at(first_start);
    end = nl;
  }
  // The window's first line: whole when the window is the whole file.
  if (window_offset == 0) return at(0);
  if (seen > 0) return at(first_start);
  return TailStart{window_offset, true};
}

}  // namespace pai::launcher
