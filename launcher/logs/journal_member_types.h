// The kinds of member a journal table may hold beside plain values (journal_events.h): a
// std::optional, a std::vector, a std::map keyed by strings. For the visitors that write, read
// and describe the tables; each trait's Item is the value type it holds (void for others).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace pai::launcher::journal {

template <class T>
struct IsOptional : std::false_type {
  using Item = void;
};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {
  using Item = T;
};

template <class T>
struct IsVector : std::false_type {
  using Item = void;
};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {
  using Item = T;
};

template <class T>
struct IsMap : std::false_type {
  using Item = void;
};
template <class T>
struct IsMap<std::map<std::string, T>> : std::true_type {
  using Item = T;
};

/// The type a member is written as: a std::optional's value, else the member's own type.
template <class T>
using WrittenAs = std::conditional_t<IsOptional<T>::value, typename IsOptional<T>::Item, T>;

}  // namespace pai::launcher::journal
