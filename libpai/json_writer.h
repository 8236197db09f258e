// Private to libpai: a streaming writer of canonical JSON.
//
// Writes exactly what nlohmann::json::dump(2) writes for the same document (sorted keys,
// 2-space indent), without building a document tree first: plan.json of a 10,000-node job
// is written in a fraction of the time a tree takes to build, dump and free.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pai {

/// Appends JSON to a string. Object keys must be given in canonical (bytewise ascending)
/// order; a key out of order throws std::logic_error, so the output is canonical or
/// nothing. Keys must stay alive until their object ends.
class JsonWriter {
 public:
  /// Writes into `out`, appending.
  explicit JsonWriter(std::string& out) : out_(out) {}

  /// Opens an object or array as the next value.
  void begin_object() { open('{'); }
  void begin_array() { open('['); }
  /// Closes the innermost object or array.
  void end_object() { close('}'); }
  void end_array() { close(']'); }

  /// The next member's key, inside an object.
  void key(std::string_view name);

  /// Scalar values.
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(std::int64_t n);
  void value(int n) { value(static_cast<std::int64_t>(n)); }
  void value(bool b);
  void value(double d);

  /// An array of strings or integers.
  void value(const std::vector<std::string>& list);
  void value(const std::vector<int>& list);

  /// key(name) followed by value(v).
  template <typename T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  /// Position in the output, for splicing text in later.
  std::size_t size() const { return out_.size(); }

 private:
  struct Level {
    bool empty = true;
    std::string_view last_key;
  };

  void open(char bracket);
  void close(char bracket);
  void before_value();
  void indent(std::size_t depth);

  std::string& out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace pai
