#include "compiler/document/document_yaml.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace pai {
namespace {

bool is_plain_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '.' || c == '_' ||
         c == '-' || c == '+' || c == '@' || c == '=' || c == ',';
}

// Whether YAML reads `text`, written plain, back as that same string: no indicator or
// special character, nothing that resolves to a number, a boolean or null.
bool reads_back_plain(const std::string& text) {
  if (text.empty()) return false;
  if (!std::isalpha(static_cast<unsigned char>(text[0])) && text[0] != '/' && text[0] != '_' &&
      text[0] != '.') {
    return false;
  }
  for (char c : text) {
    if (!is_plain_char(c)) return false;
  }
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  if (*end == '\0') return false;  // ".5", ".inf": YAML reads a number
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word :
       {"true", "false", "yes", "no", "on", "off", "y", "n", "null", ".nan", ".inf"}) {
    if (lower == word) return false;
  }
  return true;
}

std::string double_quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string scalar_text(const Node& node) {
  if (node.is_null()) return "null";
  if (!node.quoted) return node.scalar;
  return reads_back_plain(node.scalar) ? node.scalar : double_quoted(node.scalar);
}

bool is_block(const Node& node) {
  return (node.is_mapping() && !node.entries.empty()) ||
         (node.is_sequence() && !node.items.empty());
}

std::string inline_text(const Node& node) {
  if (node.is_mapping()) return "{}";
  if (node.is_sequence()) return "[]";
  return scalar_text(node);
}

void write(const Node& node, int indent, std::string& out);

// Entries of a mapping; the first one's indentation is already written when `first_inline`.
void write_mapping(const Node& node, int indent, bool first_inline, std::string& out) {
  bool first = true;
  for (const auto& [key, value] : node.entries) {
    if (!(first && first_inline)) out += std::string(static_cast<std::size_t>(indent), ' ');
    first = false;
    out += scalar_text(key) + ":";
    if (is_block(value)) {
      out += "\n";
      write(value, indent + 2, out);
    } else {
      out += " " + inline_text(value) + "\n";
    }
  }
}

void write(const Node& node, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (node.is_mapping()) {
    write_mapping(node, indent, false, out);
    return;
  }
  for (const Node& item : node.items) {
    out += pad + "- ";
    if (item.is_mapping() && !item.entries.empty()) {
      write_mapping(item, indent + 2, true, out);
    } else if (item.is_sequence() && !item.items.empty()) {
      out += "\n";
      write(item, indent + 2, out);
    } else {
      out += inline_text(item) + "\n";
    }
  }
}

}  // namespace

std::string to_yaml(const Node& node) {
  if (!is_block(node)) return inline_text(node) + "\n";
  std::string out;
  write(node, 0, out);
  return out;
}

}  // namespace pai
