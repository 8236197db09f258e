#include "libpai/terminal_text.h"

#include <cstdio>

#include "libpai/utf8.h"

namespace pai {

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_sequence_length(text, i);
    // C1 controls are two bytes in UTF-8: C2 80 to C2 9F.
    const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
    if (n == 0 || c1 || (c < 0x20 && c != '\t') || c == 0x7f) {
      const std::size_t bytes = n == 0 ? 1 : n;
      for (std::size_t k = 0; k < bytes; ++k) {
        char hex[5];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(text[i + k]));
        out += hex;
      }
      i += bytes;
      continue;
    }
    out.append(text, i, n);
    i += n;
  }
  return out;
}

}  // namespace pai
