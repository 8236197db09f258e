#include "launcher/logs/journal_json.h"

#include <cmath>
#include <limits>
#include <map>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "launcher/logs/journal_member_types.h"

// Writing and reading walk the events' field tables (journal_events.h, libpai/fields.h): the
// writer sets each member as its JSON, the reader takes each member that is there with a JSON
// type it can hold and counts the others.

namespace pai::launcher::journal {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// A visitor of the tables that sets the members of one JSON object of type J (ordered for a
// line, in table order; plain for the coordinator's records).
template <class J>
class Writer {
 public:
  explicit Writer(J& object) : object_(object) {}

  template <class T, class... Options>
  void operator()(const char* key, const T& member, const Options&... options) {
    if (!field::written(options...)) return;
    if constexpr (IsOptional<T>::value) {
      if (member) object_[key] = encode(*member);
    } else {
      object_[key] = encode(member);
    }
  }

  template <class Problem>
  void check(const char*, const Problem&) {}

  template <class T>
  static J object_of(const T& value) {
    J object = J::object();
    Writer writer(object);
    fields(writer, value);
    return object;
  }

 private:
  template <class T>
  static J encode(const T& value) {
    if constexpr (std::is_same_v<T, RawJson>) {
      // What the protocol carried was checked there; text that is no JSON stays text.
      J parsed = J::parse(value.text, nullptr, false);
      return parsed.is_discarded() ? J(value.text) : parsed;
    } else if constexpr (HasFields<T>) {
      return object_of(value);
    } else if constexpr (IsVector<T>::value) {
      J list = J::array();
      for (const auto& item : value) list.push_back(encode(item));
      return list;
    } else if constexpr (IsMap<T>::value) {
      J object = J::object();
      for (const auto& [key, item] : value) object[key] = encode(item);
      return object;
    } else {
      return J(value);
    }
  }

  J& object_;
};

// `value` when it is a JSON object or array; format 1's JSON text of one, parsed into
// `holder`; else null.
const Json* structured(const Json& value, Json& holder) {
  if (value.is_object() || value.is_array()) return &value;
  if (!value.is_string()) return nullptr;
  holder = Json::parse(value.get_ref<const std::string&>(), nullptr, false);
  return holder.is_object() || holder.is_array() ? &holder : nullptr;
}

// A visitor of the tables that reads the members of one JSON object: a member whose field is
// missing (or null) keeps its value; one of the wrong type keeps it too, and is counted.
class Reader {
 public:
  Reader(const Json& object, ReadTally& tally) : object_(object), tally_(tally) {}

  template <class T, class... Options>
  void operator()(const char* key, T& member, const Options&...) {
    static_assert(field::OptionsAmong<Note>::all<Options...>);
    const auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return;
    if (!read(*it, member)) ++tally_.mistyped;
  }

  template <class Problem>
  void check(const char*, const Problem&) {}

 private:
  bool read(const Json& value, bool& out) const {
    if (!value.is_boolean()) return false;
    out = value.get<bool>();
    return true;
  }

  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) bool read(const Json& value,
                                                                        T& out) const {
    std::int64_t n = 0;
    if (value.is_number_integer()) {
      if (value.is_number_unsigned() &&
          value.get<std::uint64_t>() >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return false;
      }
      n = value.get<std::int64_t>();
    } else if (value.is_number_float()) {
      // An integral number written as 3.0 by another tool.
      const double d = value.get<double>();
      if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) >= 9.0e15) return false;
      n = static_cast<std::int64_t>(d);
    } else {
      return false;
    }
    if (n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max()) return false;
    out = static_cast<T>(n);
    return true;
  }

  bool read(const Json& value, double& out) const {
    if (!value.is_number()) return false;
    out = value.get<double>();
    return true;
  }

  bool read(const Json& value, std::string& out) const {
    if (!value.is_string()) return false;
    out = value.get<std::string>();
    return true;
  }

  bool read(const Json& value, RawJson& out) const {
    Json holder;
    const Json* json = structured(value, holder);
    if (json == nullptr) return false;
    out.text = json->dump(-1, ' ', false, Json::error_handler_t::replace);
    return true;
  }

  template <class T>
  bool read(const Json& value, std::optional<T>& out) const {
    T item{};
    if (!read(value, item)) return false;
    out = std::move(item);
    return true;
  }

  template <HasFields T>
  bool read(const Json& value, T& out) const {
    Json holder;
    const Json* json = structured(value, holder);
    if (json == nullptr || !json->is_object()) return false;
    T item{};
    Reader reader(*json, tally_);
    fields(reader, item);
    out = std::move(item);
    return true;
  }

  // Items of the wrong type are left out, counted once for the list.
  template <class T>
  bool read(const Json& value, std::vector<T>& out) const {
    Json holder;
    const Json* json = structured(value, holder);
    if (json == nullptr || !json->is_array()) return false;
    std::vector<T> items;
    bool whole = true;
    for (const Json& element : *json) {
      T item{};
      if (!element.is_null() && read(element, item)) {
        items.push_back(std::move(item));
      } else {
        whole = false;
      }
    }
    out = std::move(items);
    return whole;
  }

  template <class T>
  bool read(const Json& value, std::map<std::string, T>& out) const {
    Json holder;
    const Json* json = structured(value, holder);
    if (json == nullptr || !json->is_object()) return false;
    std::map<std::string, T> items;
    bool whole = true;
    for (const auto& [key, element] : json->items()) {
      T item{};
      if (read(element, item)) {
        items.emplace(key, std::move(item));
      } else {
        whole = false;
      }
    }
    out = std::move(items);
    return whole;
  }

  const Json& object_;
  ReadTally& tally_;
};

using ReadFn = Event (*)(const Json&, ReadTally&);

template <class E>
Event read_as(const Json& object, ReadTally& tally) {
  E event{};
  Reader reader(object, tally);
  fields(reader, event);
  return event;
}

// kName -> the reader of that alternative.
template <std::size_t... I>
std::unordered_map<std::string_view, ReadFn> make_readers(std::index_sequence<I...>) {
  return {{std::variant_alternative_t<I, Event>::kName,
           &read_as<std::variant_alternative_t<I, Event>>}...};
}

const std::unordered_map<std::string_view, ReadFn>& readers() {
  static const auto table = make_readers(std::make_index_sequence<std::variant_size_v<Event>>{});
  return table;
}

}  // namespace

Json fields_json(const Event& event) {
  return std::visit([](const auto& e) { return Writer<Json>::object_of(e); }, event);
}

std::optional<Event> read_event(std::string_view name, const Json& object, ReadTally& tally) {
  const auto it = readers().find(name);
  if (it == readers().end()) {
    ++tally.unknown;
    return std::nullopt;
  }
  return it->second(object, tally);
}

std::string format_record(std::int64_t unix_ms, const Event& event) {
  OrderedJson line;
  line["time"] = format_time(unix_ms);
  line["event"] = name_of(event);
  std::visit(
      [&](const auto& e) {
        Writer<OrderedJson> writer(line);
        fields(writer, e);
      },
      event);
  // Output of processes is arbitrary bytes; invalid UTF-8 is replaced rather than thrown on.
  return line.dump(-1, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace pai::launcher::journal
