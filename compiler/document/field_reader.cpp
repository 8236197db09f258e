#include "compiler/document/field_reader.h"

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "compiler/document/did_you_mean.h"
#include "compiler/document/parameters.h"
#include "libpai/duration.h"
#include "libpai/quantity.h"
#include "libpai/utf8.h"

namespace pai {

namespace {

constexpr size_t kMaxShown = 60;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_integer_syntax(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return false;
  }
  return true;
}

// Decimal numbers as YAML and JSON write them: 42, -1.5, .5, 3e-4.
bool is_number_syntax(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exponent = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == s.size();
}

bool bool_value(const std::string& s, bool* out) {
  if (s == "true" || s == "True" || s == "TRUE") return *out = true, true;
  if (s == "false" || s == "False" || s == "FALSE") return *out = false, true;
  return false;
}

std::string integer_description(std::int64_t min, std::int64_t max) {
  if (max >= INT_MAX) {
    if (min == 0) return "a non-negative integer";
    if (min == 1) return "a positive integer";
    return "an integer of at least " + std::to_string(min);
  }
  return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
}

const char kQuotedNumberHint[] = " (write numbers without quotes)";

}  // namespace

std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  size_t i = 0;
  while (i < s.size()) {
    if (i >= kMaxShown) {
      out += "...";
      break;
    }
    const size_t n = utf8_sequence_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 0 || c < 0x20 || c == 0x7f) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      }
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out.append(s, i, n);
    i += n;
  }
  return out + "\"";
}

std::string describe(const Node& node) {
  switch (node.kind) {
    case Node::Kind::Null:
      return "null";
    case Node::Kind::Sequence:
      return "a list";
    case Node::Kind::Mapping:
      return "a mapping";
    case Node::Kind::Scalar:
      break;
  }
  bool ignored;
  if (!node.quoted && (is_number_syntax(node.scalar) || bool_value(node.scalar, &ignored))) {
    if (node.scalar.size() <= kMaxShown) return node.scalar;
    return node.scalar.substr(0, kMaxShown) + "...";
  }
  return quote(node.scalar);
}

bool is_dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-')) return false;
  }
  return true;
}

bool is_env_name(const std::string& s) {
  if (s.empty() || is_digit(s[0])) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_')) {
      return false;
    }
  }
  return true;
}

void FieldReader::record(const std::string& path, const Node& node) {
  locations_[path] = node.loc;
}

Location FieldReader::locate(const Node& node, size_t offset) const {
  if (!source_ || !node.is_scalar() || node.loc.line <= 0 || node.loc.column <= 0) {
    return node.loc;
  }
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < source_->size(); ++i) {
      if ((*source_)[i] == '\n') line_starts_.push_back(i + 1);
    }
  }
  const auto line = static_cast<size_t>(node.loc.line);
  if (line > line_starts_.size()) return node.loc;
  size_t start = line_starts_[line - 1] + static_cast<size_t>(node.loc.column - 1);
  if (node.quoted) ++start;  // past the opening quote
  if (start > source_->size() || source_->compare(start, node.scalar.size(), node.scalar) != 0 ||
      node.scalar.find('\n') != std::string::npos) {
    return node.loc;
  }
  Location loc = node.loc;
  loc.column += static_cast<int>(offset) + (node.quoted ? 1 : 0);
  return loc;
}

std::string FieldReader::substitute(const Node& node, const std::string& text,
                                    const std::map<std::string, std::string>& parameters,
                                    const std::string& path) {
  const bool verbatim = node.is_scalar() && text == node.scalar;
  return substitute_parameters(
      text, parameters,
      [&](size_t offset) { return verbatim ? locate(node, offset) : node.loc; }, path, diags_);
}

void FieldReader::error(const Node& node, const std::string& path,
                        const std::string& message) {
  diags_.error(node.loc, path, message);
}

bool FieldReader::expect(const Node& node, const std::string& path,
                         const std::string& expected, const std::string& hint) {
  error(node, path, "expected " + expected + ", got " + describe(node) + hint);
  return false;
}

bool FieldReader::mapping(const Node& node, const std::string& path,
                          const std::vector<std::string>& known,
                          const std::vector<std::string>& nested) {
  if (!locations_.count(path)) record(path, node);
  if (!node.is_mapping()) return expect(node, path, "a mapping");
  for (const auto& [key, value] : node.entries) {
    bool found = false;
    for (const std::string& k : known) found = found || (key.is_scalar() && key.scalar == k);
    if (found) continue;
    const std::string name = key.is_scalar() ? key.scalar : describe(key);
    std::string hint = did_you_mean(name, known);
    if (hint.empty()) {
      std::vector<std::string> leaves;
      for (const std::string& n : nested) leaves.push_back(n.substr(n.rfind('.') + 1));
      const std::string leaf = closest_match(name, leaves);
      for (size_t i = 0; i < leaves.size() && hint.empty(); ++i) {
        if (!leaf.empty() && leaves[i] == leaf) hint = " (did you mean \"" + nested[i] + "\"?)";
      }
    }
    error(key, path, "unknown key " + quote(name) + hint);
  }
  return true;
}

bool FieldReader::free_mapping(const Node& node, const std::string& path) {
  if (!locations_.count(path)) record(path, node);
  return node.is_mapping() || expect(node, path, "a mapping");
}

const Node* FieldReader::optional(const Node& map, const std::string& path,
                                  const std::string& key) {
  for (const auto& [k, v] : map.entries) {
    if (!k.is_scalar() || k.scalar != key) continue;
    // A scalar is best pointed at where its value is; a block at its key.
    record(join_path(path, key), v.is_scalar() ? v : k);
    return v.is_null() ? nullptr : &v;
  }
  return nullptr;
}

const Node* FieldReader::required(const Node& map, const std::string& path,
                                  const std::string& key) {
  const Node* value = optional(map, path, key);
  if (value) return value;
  const auto it = locations_.find(path);
  diags_.error(it != locations_.end() ? it->second : map.loc, path,
               "missing required field " + quote(key));
  return nullptr;
}

bool FieldReader::integer(const Node& node, const std::string& path, std::int64_t min,
                          std::int64_t max, std::int64_t* out, const char* expected) {
  const std::string what = expected ? expected : integer_description(min, max);
  if (!node.is_scalar() || !is_integer_syntax(node.scalar)) return expect(node, path, what);
  if (node.quoted) return expect(node, path, what, kQuotedNumberHint);
  const std::string& s = node.scalar;
  const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < min || value > max) {
    return expect(node, path, what);
  }
  *out = value;
  return true;
}

bool FieldReader::integer(const Node& node, const std::string& path, std::int64_t min,
                          std::int64_t max, int* out, const char* expected) {
  std::int64_t value = 0;
  if (!integer(node, path, min, std::min<std::int64_t>(max, INT_MAX), &value, expected)) {
    return false;
  }
  *out = static_cast<int>(value);
  return true;
}

bool FieldReader::number(const Node& node, const std::string& path, const char* expected,
                         bool (*in_range)(double), double* out) {
  if (!node.is_scalar() || !is_number_syntax(node.scalar)) return expect(node, path, expected);
  if (node.quoted) return expect(node, path, expected, kQuotedNumberHint);
  const double value = std::strtod(node.scalar.c_str(), nullptr);
  if (!std::isfinite(value) || !in_range(value)) return expect(node, path, expected);
  *out = value;
  return true;
}

bool FieldReader::boolean(const Node& node, const std::string& path, bool* out) {
  bool value = false;
  if (!node.is_scalar() || !bool_value(node.scalar, &value)) {
    return expect(node, path, "true or false");
  }
  if (node.quoted) return expect(node, path, "true or false", " (write it without quotes)");
  *out = value;
  return true;
}

bool FieldReader::string(const Node& node, const std::string& path, std::string* out) {
  if (!node.is_scalar()) return expect(node, path, "a string");
  *out = node.scalar;
  return true;
}

bool FieldReader::scalar_value(const Node& node, const std::string& path, std::string* out) {
  if (!node.is_scalar()) return expect(node, path, "a string, number or bool");
  bool b = false;
  *out = !node.quoted && bool_value(node.scalar, &b) ? (b ? "true" : "false") : node.scalar;
  return true;
}

bool FieldReader::enumeration(const Node& node, const std::string& path,
                              const std::vector<std::string>& values, size_t* index) {
  std::string expected = "one of ";
  for (size_t i = 0; i < values.size(); ++i) expected += (i ? ", " : "") + values[i];
  if (node.is_scalar()) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (node.scalar == values[i]) {
        *index = i;
        return true;
      }
    }
    return expect(node, path, expected, did_you_mean(node.scalar, values));
  }
  return expect(node, path, expected);
}

bool FieldReader::duration(const Node& node, const std::string& path, std::int64_t min_seconds,
                           std::int64_t* out) {
  if (!node.is_scalar()) {
    return expect(node, path, "a duration like 90s, 30m, 2h or seconds");
  }
  std::string why;
  const auto seconds = parse_duration(node.scalar, &why);
  if (!seconds) {
    if (why.find("got ") == std::string::npos) why += ", got " + describe(node);
    error(node, path, why);
    return false;
  }
  if (*seconds < min_seconds) {
    return expect(node, path,
                  min_seconds == 1 ? std::string("a duration greater than 0")
                                   : "a duration of at least " + format_duration(min_seconds));
  }
  *out = *seconds;
  return true;
}

bool FieldReader::quantity(const Node& node, const std::string& path, std::int64_t min_bytes,
                           std::int64_t* out) {
  if (!node.is_scalar()) return expect(node, path, "a quantity like 64Gi or 500M");
  std::string why;
  const auto bytes = parse_quantity(node.scalar, &why);
  if (!bytes) {
    if (why.find("got ") == std::string::npos) why += ", got " + describe(node);
    error(node, path, why);
    return false;
  }
  if (*bytes < min_bytes) {
    return expect(node, path, "a quantity of at least " + format_quantity(min_bytes));
  }
  *out = *bytes;
  return true;
}

bool FieldReader::dns_label(const Node& node, const std::string& path, std::string* out) {
  static const char kExpected[] =
      "a DNS label (at most 63 lowercase letters, digits or '-', starting and ending with a "
      "letter or digit)";
  if (!node.is_scalar() || !is_dns_label(node.scalar)) return expect(node, path, kExpected);
  *out = node.scalar;
  return true;
}

bool FieldReader::absolute_path(const Node& node, const std::string& path, std::string* out) {
  if (!node.is_scalar() || node.scalar.empty() || node.scalar[0] != '/') {
    return expect(node, path, "an absolute path");
  }
  *out = node.scalar;
  return true;
}

bool FieldReader::matching(const Node& node, const std::string& path,
                           bool (*valid)(const std::string&), const std::string& what,
                           std::string* out) {
  if (!node.is_scalar() || !valid(node.scalar)) return expect(node, path, what);
  *out = node.scalar;
  return true;
}

bool FieldReader::list(const Node& node, const std::string& path, const char* what) {
  if (node.is_sequence()) return true;
  return expect(node, path, what);
}

bool FieldReader::string_list(const Node& node, const std::string& path,
                              std::vector<std::string>* out) {
  if (!list(node, path, "a list of strings")) return false;
  std::vector<std::string> values;
  bool ok = true;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string item_path = index_path(path, i);
    record(item_path, node.items[i]);
    std::string value;
    if (string(node.items[i], item_path, &value)) {
      values.push_back(std::move(value));
    } else {
      ok = false;
    }
  }
  if (ok) *out = std::move(values);
  return ok;
}

}  // namespace pai
