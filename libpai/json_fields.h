// Private to libpai: strict, typed access to the members of a JSON object, for plan.json.
//
// Every error is a PlanError naming the file and the member's path, in the form
// `plan.json: roles[0].instances: expected an integer`.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "libpai/plan.h"

namespace pai {

/// A view of one JSON object at `path` in `file`. Holds references: the JSON value and the
/// file name must outlive it.
class JsonFields {
 public:
  using json = nlohmann::json;

  /// Throws PlanError unless `object` is a JSON object.
  JsonFields(const json& object, std::string path, const std::string& file);

  /// The member `key`; PlanError "field is missing" if absent.
  const json& get(const char* key) const;
  /// Typed members; PlanError "expected a string" (etc.) on a type mismatch.
  std::string string(const char* key) const;
  bool boolean(const char* key) const;
  double number(const char* key) const;
  std::int64_t int64(const char* key) const;
  /// A duration in whole seconds, in [0, kMaxDurationSeconds] (libpai/duration.h).
  std::int64_t seconds(const char* key) const;
  /// An integer in [min, INT_MAX].
  int integer(const char* key, int min = INT_MIN) const;
  /// The member `key` as an object view.
  JsonFields object(const char* key) const;
  /// The member `key`, which must be an array.
  const json& array(const char* key) const;
  /// The member `key`, which must be an array of strings.
  std::vector<std::string> strings(const char* key) const;

  /// The member `key` spelled as to_string() spells one of `values`.
  template <typename Enum, std::size_t N>
  Enum enumeration(const char* key, const std::array<Enum, N>& values) const {
    std::string text = string(key);
    std::string allowed;
    for (Enum v : values) {
      if (text == to_string(v)) return v;
      allowed += allowed.empty() ? "" : ", ";
      allowed += to_string(v);
    }
    fail(child(key), "expected one of " + allowed + ", got \"" + text + "\"");
  }

  /// `value` as an integer in [min, INT_MAX]; `path()` names it in an error (called only
  /// then, so callers pay for building a path only on failure).
  template <typename PathFn>
  int integer_at(const json& value, const PathFn& path, int min = INT_MIN) const {
    std::int64_t n = int64_at(value, path);
    if (n < min || n > INT_MAX) {
      fail(path(), min == INT_MIN ? std::string("integer out of range")
                                  : "expected an integer from " + std::to_string(min) + " to " +
                                        std::to_string(INT_MAX));
    }
    return static_cast<int>(n);
  }

  /// `value` as a 64-bit integer; `path()` names it in an error.
  template <typename PathFn>
  std::int64_t int64_at(const json& value, const PathFn& path) const {
    if (!value.is_number_integer()) fail(path(), "expected an integer");
    if (value.is_number_unsigned() &&
        value.template get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(path(), "integer out of range");
    }
    return value.template get<std::int64_t>();
  }

  /// The path of member `key` / of item `i` of member `key`.
  std::string child(const std::string& key) const;
  std::string item(const char* key, std::size_t i) const;
  /// The object itself, for free-form maps.
  const json& raw() const { return object_; }
  const std::string& file() const { return file_; }

  /// Throws PlanError "<path>.<key>: unknown field" for the first member that no getter
  /// above has asked for. Rejecting them also means every value of a verified plan has
  /// been type-checked, so nothing deeply nested reaches the hash's re-serialization.
  void reject_unknown() const;

  /// Throws PlanError "<file>: <path>: <message>".
  [[noreturn]] void fail(const std::string& path, const std::string& message) const;

 private:
  const json& object_;
  std::string path_;
  const std::string& file_;
  mutable std::vector<const char*> seen_;
};

}  // namespace pai
