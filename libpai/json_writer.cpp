#include "libpai/json_writer.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace pai {
namespace {

// Strings that need no escaping, which is nearly all of a plan, are copied as they are;
// the rest go through nlohmann so escapes and invalid UTF-8 come out byte-identical.
bool needs_escaping(std::string_view s) {
  for (char c : s) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') return true;
  }
  return false;
}

void append_string(std::string& out, std::string_view s) {
  if (!needs_escaping(s)) {
    out += '"';
    out += s;
    out += '"';
    return;
  }
  out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void JsonWriter::indent(std::size_t depth) { out_.append(2 * depth, ' '); }

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  out_ += level.empty ? "\n" : ",\n";
  level.empty = false;
  indent(levels_.size());
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  levels_.push_back(Level{});
}

void JsonWriter::close(char bracket) {
  bool empty = levels_.back().empty;
  levels_.pop_back();
  if (!empty) {
    out_ += '\n';
    indent(levels_.size());
  }
  out_ += bracket;
}

void JsonWriter::key(std::string_view name) {
  Level& level = levels_.back();
  if (!level.empty && !(level.last_key < name)) {
    throw std::logic_error("JSON key \"" + std::string(name) + "\" written out of canonical order");
  }
  out_ += level.empty ? "\n" : ",\n";
  level.empty = false;
  level.last_key = name;
  indent(levels_.size());
  append_string(out_, name);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  before_value();
  append_string(out_, s);
}

void JsonWriter::value(std::int64_t n) {
  before_value();
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, n);
  out_.append(buffer, result.ptr);
}

void JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
}

void JsonWriter::value(double d) {
  before_value();
  out_ += nlohmann::json(d).dump();
}

void JsonWriter::value(const std::vector<std::string>& list) {
  begin_array();
  for (const std::string& s : list) value(s);
  end_array();
}

void JsonWriter::value(const std::vector<int>& list) {
  begin_array();
  for (int n : list) value(n);
  end_array();
}

}  // namespace pai
