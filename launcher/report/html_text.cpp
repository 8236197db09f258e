#include "launcher/report/html_text.h"

#include "libpai/terminal_text.h"

namespace pai::launcher::report {

std::string html_text(std::string_view text) {
  const std::string safe = terminal_safe(text);
  std::string out;
  out.reserve(safe.size() + safe.size() / 8);
  for (char c : safe) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string html_lines(std::string_view text) {
  std::string out;
  for (;;) {
    const std::size_t nl = text.find('\n');
    out += html_text(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

}  // namespace pai::launcher::report
