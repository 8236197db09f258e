// Where `pai-launch logs --tail N` starts in a rank's log: the last N lines within a byte cap,
// at a line boundary. A pure function over the last bytes of the file, so the rule is tested
// without files.
#pragma once

#include <cstdint>
#include <string_view>

namespace pai::launcher {

/// Sent before the text of a tail that starts inside a line (a line longer than the cap).
inline constexpr std::string_view kCutLineMarker = "[... start of line cut] ";

/// The first byte of a tail.
struct TailStart {
  std::int64_t offset = 0;  ///< file offset of the first byte to send
  bool cut = false;         ///< offset is inside a line: send kCutLineMarker first
  bool operator==(const TailStart&) const = default;
};

/// Where the last `lines` lines of a file start (`lines` < 0: as many as `window` holds).
/// `window` holds the file's last bytes, from offset `window_offset` to its end; a last line
/// without its newline (still being written) counts as a line. The tail never starts inside
/// a line: a line that began before the window is left out, unless it is the only one in
/// the window (one line longer than the cap), whose end is then sent behind the marker
/// (`cut`). Fewer lines than asked come back when the window holds fewer. A line is known to
/// start in the window only by the newline before it, so a caller with a cap of N bytes
/// passes the last N + 1.
TailStart tail_start(std::string_view window, std::int64_t window_offset, int lines);

}  // namespace pai::launcher
