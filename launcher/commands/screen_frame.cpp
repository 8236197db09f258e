#include "launcher/commands/screen_frame.h"

namespace pai::launcher {

std::string in_place_frame(std::string_view text) {
  constexpr std::string_view kHome = "\x1b[H";
  constexpr std::string_view kClearLineEnd = "\x1b[K";
  constexpr std::string_view kClearBelow = "\x1b[J";
  std::string out(kHome);
  out.reserve(text.size() + 64);
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    out.append(text.substr(begin, end - begin));
    out.append(kClearLineEnd);
    out.push_back('\n');
    begin = end + 1;
  }
  out.append(kClearBelow);
  return out;
}

}  // namespace pai::launcher
