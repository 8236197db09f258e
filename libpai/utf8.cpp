#include "libpai/utf8.h"

namespace pai {

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  // Second-byte bounds exclude overlong forms (E0, F0), surrogates (ED) and > U+10FFFF (F4).
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if ((byte(k) & 0xc0) != 0x80) return 0;
  }
  return n;
}

}  // namespace pai
