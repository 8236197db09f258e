// Typed reading of document nodes for the spec parser: every mismatch is a located
// diagnostic saying what was expected and what was written, and every field read has its
// location recorded under its path.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "libpai/enum_names.h"

namespace pai {

/// "a.b" for (a, b); "b" for ("", b).
std::string join_path(const std::string& parent, const std::string& key);
/// "a[3]" for (a, 3).
std::string index_path(const std::string& parent, size_t index);

/// How a node is shown after "got": scalars as written (strings quoted and escaped,
/// numbers and bools bare, long text shortened), "null", "a mapping", "a list".
std::string describe(const Node& node);

/// `s` in double quotes with quotes, backslashes, control characters and bytes that are
/// not UTF-8 escaped, shortened past 60 bytes.
std::string quote(const std::string& s);

/// True for names matching [a-z0-9]([-a-z0-9]*[a-z0-9])? of at most 63 characters.
bool is_dns_label(const std::string& s);
/// True for names matching [A-Za-z_][A-Za-z0-9_]* (env and parameter names).
bool is_env_name(const std::string& s);

/// Reads fields of one document, reporting into `diags` and recording each field's
/// location into `locations`. Each reader returns false (leaving `*out` untouched) when
/// the node is not acceptable, after reporting why.
class FieldReader {
 public:
  /// `source` is the text the nodes were loaded from, if any: it lets errors inside a
  /// scalar point at the exact column.
  FieldReader(Diagnostics& diags, std::map<std::string, Location>& locations,
              const std::string* source = nullptr)
      : diags_(diags), locations_(locations), source_(source) {}

  /// Records `node`'s location under `path`.
  void record(const std::string& path, const Node& node);
  /// Where byte `offset` of scalar `node`'s text was written: exact when the scalar
  /// stands verbatim on one source line (plain, or quoted without escapes), else the
  /// node's own location.
  Location locate(const Node& node, size_t offset) const;
  /// `text` (read from `node`) with ${parameters.x} substituted from `parameters`; an
  /// undefined parameter is an error located at its reference.
  std::string substitute(const Node& node, const std::string& text,
                         const std::map<std::string, std::string>& parameters,
                         const std::string& path);
  /// Reports an error at `node` for `path`.
  void error(const Node& node, const std::string& path, const std::string& message);

  /// Checks that `node` is a mapping whose keys are all in `known` (unknown keys are
  /// errors at the key, with a suggestion). `nested` lists fields of sub-objects as
  /// "restart.maxRestarts", suggested when an unknown key is one of them written a level
  /// too high. Records `path`.
  bool mapping(const Node& node, const std::string& path, const std::vector<std::string>& known,
               const std::vector<std::string>& nested = {});
  /// Checks that `node` is a mapping with free-form keys (env, ports, parameters).
  bool free_mapping(const Node& node, const std::string& path);
  /// The value of `key` in the mapping `map`, recorded as path.key; nullptr when absent or
  /// null (an unset optional field keeps its default).
  const Node* optional(const Node& map, const std::string& path, const std::string& key);
  /// Like optional(), but an absent or null field is an error `missing required field
  /// "key"` at the mapping (or at the null value).
  const Node* required(const Node& map, const std::string& path, const std::string& key);

  /// An unquoted integer in [min, max]. `expected` replaces the generated description
  /// ("an integer between 1 and 100") when given.
  bool integer(const Node& node, const std::string& path, std::int64_t min, std::int64_t max,
               std::int64_t* out, const char* expected = nullptr);
  /// int overload of integer().
  bool integer(const Node& node, const std::string& path, std::int64_t min, std::int64_t max,
               int* out, const char* expected = nullptr);
  /// An unquoted finite number; `expected` describes the accepted range for messages and
  /// `in_range` decides it.
  bool number(const Node& node, const std::string& path, const char* expected,
              bool (*in_range)(double), double* out);
  /// Unquoted true or false.
  bool boolean(const Node& node, const std::string& path, bool* out);
  /// Any scalar, as written.
  bool string(const Node& node, const std::string& path, std::string* out);
  /// A string or a number, normalized: bools as true/false. For env and parameter values.
  bool scalar_value(const Node& node, const std::string& path, std::string* out);
  /// One of `values` (exactly), with a suggestion for near misses. Sets `*index`.
  bool enumeration(const Node& node, const std::string& path,
                   const std::vector<std::string>& values, size_t* index);
  /// One of the spellings of `values` (libpai/enum_names.h), as above. Sets `*out`.
  template <NamedEnum Enum, std::size_t N>
  bool enumeration(const Node& node, const std::string& path, const std::array<Enum, N>& values,
                   Enum* out) {
    std::vector<std::string> names;
    names.reserve(N);
    for (Enum v : values) names.emplace_back(to_string(v));
    size_t index = 0;
    if (!enumeration(node, path, names, &index)) return false;
    *out = values[index];
    return true;
  }
  /// A duration of at least `min_seconds` seconds (string or unquoted number).
  bool duration(const Node& node, const std::string& path, std::int64_t min_seconds,
                std::int64_t* out);
  /// A quantity of bytes of at least `min_bytes` (string or unquoted number).
  bool quantity(const Node& node, const std::string& path, std::int64_t min_bytes,
                std::int64_t* out);
  /// A DNS label (see is_dns_label).
  bool dns_label(const Node& node, const std::string& path, std::string* out);
  /// An absolute path (starts with '/').
  bool absolute_path(const Node& node, const std::string& path, std::string* out);
  /// A scalar for which `valid` holds (a name of some shape); "expected <what>" otherwise.
  bool matching(const Node& node, const std::string& path, bool (*valid)(const std::string&),
                const std::string& what, std::string* out);
  /// A list of scalars; items are recorded as path[i].
  bool string_list(const Node& node, const std::string& path, std::vector<std::string>* out);
  /// A list; reports "expected <what>, got ..." otherwise.
  bool list(const Node& node, const std::string& path, const char* what);

 private:
  bool expect(const Node& node, const std::string& path, const std::string& expected,
              const std::string& hint = "");

  Diagnostics& diags_;
  std::map<std::string, Location>& locations_;
  const std::string* source_;
  mutable std::vector<size_t> line_starts_;  // byte offset of each line, computed on demand
};

}  // namespace pai
