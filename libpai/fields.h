// Field tables: each struct with a JSON form (plan.json, the coordinator protocol) spells
// its fields once, in one function next to the struct, and every reader, writer and check
// of that form walks the same list:
//
//   struct Hang {
//     int instance = 0;
//     std::int64_t seconds = 0;
//     std::string reason;
//     friend void fields(auto& v, Like<Hang> auto& m) {
//       v("instance", m.instance, InstanceNumber{});
//       v("seconds", m.seconds, NonNegative{});
//       v("reason", m.reason, field::optional);
//     }
//   };
//
// `m` is the struct for a reader and const for a writer, so the one function serves both.
// Fields are listed in the order readers check them (the order of their first error); a
// writer that needs another order (plan.json's sorted keys) sorts. A visitor `v` offers:
//
//   v(key, member, options...)    the member under `key`. Options are plain values the
//                                 visitors interpret: field::optional / field::present_if
//                                 below, and the bounds and encodings of each format (a range,
//                                 base64...), declared beside its tables. A member whose type
//                                 has a table of its own is a nested object; a vector of
//                                 them, an array of objects; a std::optional may be absent
//                                 and is written when set.
//   v.check(key, problem)         readers call problem() (a callable returning the error's
//                                 text, empty when there is none) here, after the fields
//                                 before it: checks across fields. Writers ignore it.
//   v.group(key, fn)              the JSON object `key` holds the fields fn(v) lists, members
//                                 of this same struct (plan.json's "restart": {...}).
//   v.optional_group(key, flag, fn)   the same, present exactly when `flag` (a bool member)
//                                 is true: written then, and reading sets `flag` to whether
//                                 it was there.
//   v.together(present, fn)       fields of this object that are all there or none: written
//                                 when `present`; read (each one then required) when any is.
//   v.read_if(condition, fn)      readers read fn's fields only when `condition` holds of the
//                                 fields read before; writers write them always.
//
// No third-party type appears here: the JSON libraries stay with the visitors.
#pragma once

#include <concepts>
#include <type_traits>
#include <vector>

namespace pai {

/// `M` is `T` or `const T`: a table's parameter, `Like<T> auto& m`, binds both.
template <class M, class T>
concept Like = std::same_as<std::remove_const_t<M>, T>;

namespace field {

/// Option: the member may be absent when read (it keeps the value it has, its default) and
/// is written only when `present`.
struct PresentIf {
  bool present;
};

/// The member may be absent when read and is written when `present` holds.
constexpr PresentIf present_if(bool present) { return PresentIf{present}; }

/// The member may be absent when read and is always written.
inline constexpr PresentIf optional{true};

/// Whether `Option` is among `Options`.
template <class Option, class... Options>
inline constexpr bool has = (std::is_same_v<Option, Options> || ...);

/// Whether the options allow the member to be absent when read.
template <class... Options>
inline constexpr bool may_be_absent = has<PresentIf, Options...>;

/// Whether `option` lets a writer write its member: false only for a PresentIf that does
/// not hold.
template <class Option>
constexpr bool allows_writing(const Option& option) {
  if constexpr (std::is_same_v<Option, PresentIf>) {
    return option.present;
  } else {
    return true;
  }
}

/// `OptionsAmong<Allowed...>::all<Options...>`: whether every option is of a type among
/// `Allowed` or a PresentIf. A reader static_asserts it, so that a table giving a member an
/// option its reader does not check fails to compile instead of going unchecked.
template <class... Allowed>
struct OptionsAmong {
  template <class... Options>
  static constexpr bool all = (has<Options, Allowed..., PresentIf> && ...);
};

/// Whether a writer writes a member with these options: every PresentIf among them holds.
template <class... Options>
constexpr bool written(const Options&... options) {
  return (allows_writing(options) && ...);
}

/// The first option of type `Option`; only where has<Option, Options...>.
template <class Option, class First, class... Rest>
constexpr const Option& get(const First& first, const Rest&... rest) {
  if constexpr (std::is_same_v<Option, First>) {
    return first;
  } else {
    return get<Option>(rest...);
  }
}

/// A visitor that lists the keys of one JSON object in table order: those of its members,
/// groups and optional groups, and of the fields of `together` and `read_if` (which sit in
/// the same object), not those inside nested objects.
class Keys {
 public:
  template <class T, class... Options>
  void operator()(const char* key, T&, const Options&...) {
    keys_.push_back(key);
  }
  template <class Problem>
  void check(const char*, const Problem&) {}
  template <class Fn>
  void group(const char* key, const Fn&) {
    keys_.push_back(key);
  }
  template <class Flag, class Fn>
  void optional_group(const char* key, Flag&, const Fn&) {
    keys_.push_back(key);
  }
  template <class Fn>
  void together(bool, const Fn& fn) {
    fn(*this);
  }
  template <class Fn>
  void read_if(bool, const Fn& fn) {
    fn(*this);
  }

  /// The keys listed so far.
  const std::vector<const char*>& keys() const { return keys_; }

 private:
  std::vector<const char*> keys_;
};

}  // namespace field

/// A type with a field table: fields(v, object) is found for it (by argument-dependent
/// lookup, so a table is a friend or a function in the type's namespace).
template <class T>
concept HasFields = requires(field::Keys& keys, T& object) {
  fields(keys, object);
};

namespace field {
template <class T>
struct IsListOfFields : std::false_type {};
template <HasFields T>
struct IsListOfFields<std::vector<T>> : std::true_type {};
}  // namespace field

/// A std::vector of a type with a field table: an array of objects.
template <class T>
concept ListOfFields = field::IsListOfFields<T>::value;

/// The keys of the fields `fn` lists (a group's or together's function), in table order.
template <class Fn>
std::vector<const char*> keys_of(const Fn& fn) {
  field::Keys keys;
  fn(keys);
  return keys.keys();
}

}  // namespace pai
