// Names of enums, written once: each enum that is spelled in the spec or in plan.json has one
// table (EnumNames<E>::table, next to the enum), and printing, parsing and "expected one of"
// lists all read it.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace pai {

/// One enumerator and its spelling.
template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

/// Specialized for each named enum with `static constexpr std::array<EnumName<E>, N> table`,
/// listing every enumerator once, in the order error messages list them.
template <typename Enum>
struct EnumNames;

/// An enum that has a name table.
template <typename Enum>
concept NamedEnum = requires {
  EnumNames<Enum>::table;
};

/// The spelling of `value`; "" for a value outside the table (a cast from a bad integer).
template <NamedEnum Enum>
constexpr const char* to_string(Enum value) {
  for (const EnumName<Enum>& entry : EnumNames<Enum>::table) {
    if (entry.value == value) return entry.name;
  }
  return "";
}

/// The enumerator spelled `text`, if any.
template <NamedEnum Enum>
constexpr std::optional<Enum> enum_from_string(std::string_view text) {
  for (const EnumName<Enum>& entry : EnumNames<Enum>::table) {
    if (text == entry.name) return entry.value;
  }
  return std::nullopt;
}

/// Every enumerator, in table order.
template <NamedEnum Enum>
constexpr auto enum_values() {
  constexpr auto& table = EnumNames<Enum>::table;
  std::array<Enum, table.size()> values{};
  for (std::size_t i = 0; i < table.size(); ++i) values[i] = table[i].value;
  return values;
}

}  // namespace pai
