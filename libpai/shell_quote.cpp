#include "libpai/shell_quote.h"

namespace pai {
namespace {

bool is_safe(char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '_':
    case '@':
    case '%':
    case '+':
    case '=':
    case ':':
    case ',':
    case '.':
    case '/':
    case '-':
      return true;
    default:
      return false;
  }
}

bool is_safe_word(std::string_view s) {
  // A leading '-' would be read as an option by the command receiving the word.
  if (s.empty() || s.front() == '-') return false;
  for (char c : s) {
    if (!is_safe(c)) return false;
  }
  return true;
}

}  // namespace

std::string shell_quote(std::string_view s) {
  std::string out;
  append_shell_quoted(out, s);
  return out;
}

void append_shell_quoted(std::string& out, std::string_view s) {
  if (is_safe_word(s)) {
    out += s;
    return;
  }
  out.reserve(out.size() + s.size() + 2);
  out += '\'';
  for (char c : s) {
    if (c == '\'') {
      out += "'\"'\"'";
    } else {
      out += c;
    }
  }
  out += '\'';
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  bool first = true;
  for (const std::string& word : words) {
    if (!first) out += ' ';
    first = false;
    append_shell_quoted(out, word);
  }
  return out;
}

}  // namespace pai
