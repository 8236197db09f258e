#include "launcher/logs/journal_docs.h"

#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "launcher/logs/journal_events.h"
#include "launcher/logs/journal_member_types.h"

// Both walk the events' field tables with a visitor that looks only at the members' types and
// options: the JSON type a member is written as, whether it is always written, its note.

namespace pai::launcher::journal {
namespace {

using Json = nlohmann::ordered_json;

// "strings" for "string", "arrays of strings" for "array of strings".
std::string plural(const std::string& type) {
  for (const char* head : {"array", "object"}) {
    const std::string prefix = std::string(head) + " of ";
    if (type.rfind(prefix, 0) == 0) return std::string(head) + "s of " + type.substr(prefix.size());
  }
  return type + "s";
}

template <class T>
std::string type_text() {
  if constexpr (std::is_same_v<T, bool>) {
    return "boolean";
  } else if constexpr (std::is_integral_v<T>) {
    return "integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string";
  } else if constexpr (std::is_same_v<T, RawJson>) {
    return "JSON array or object";
  } else if constexpr (HasFields<T>) {
    return "object";
  } else if constexpr (IsVector<T>::value) {
    return "array of " + plural(type_text<typename IsVector<T>::Item>());
  } else {
    static_assert(IsMap<T>::value, "a member type the journal does not write");
    return "object of " + plural(type_text<typename IsMap<T>::Item>());
  }
}

template <class T>
Json object_schema();

template <class T>
Json schema_of() {
  if constexpr (std::is_same_v<T, bool>) {
    return Json{{"type", "boolean"}};
  } else if constexpr (std::is_integral_v<T>) {
    return Json{{"type", "integer"}};
  } else if constexpr (std::is_floating_point_v<T>) {
    return Json{{"type", "number"}};
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Json{{"type", "string"}};
  } else if constexpr (std::is_same_v<T, RawJson>) {
    return Json{{"type", Json::array({"array", "object"})}};
  } else if constexpr (HasFields<T>) {
    return object_schema<T>();
  } else if constexpr (IsVector<T>::value) {
    return Json{{"type", "array"}, {"items", schema_of<typename IsVector<T>::Item>()}};
  } else {
    return Json{{"type", "object"}, {"additionalProperties", schema_of<typename IsMap<T>::Item>()}};
  }
}

// One field as a table lists it.
struct FieldDoc {
  std::string key;  // "status.code", "pairs[].gbps"
  std::string type;
  bool optional = false;
  std::string note;
};

// The member's type as written (a std::optional's value), whether it may be absent, its note.
struct FieldFacts {
  template <class T, class... Options>
  static constexpr bool optional = IsOptional<T>::value || field::may_be_absent<Options...>;

  template <class... Options>
  static std::string note_of(const Options&... options) {
    if constexpr (field::has<Note, Options...>) {
      return field::get<Note>(options...).text;
    } else {
      return "";
    }
  }
};

// Lists the fields of one table, nested objects' after their own row.
class Describer {
 public:
  Describer(std::vector<FieldDoc>& rows, std::string prefix)
      : rows_(rows), prefix_(std::move(prefix)) {}

  template <class T, class... Options>
  void operator()(const char* key, const T&, const Options&... options) {
    using W = WrittenAs<T>;
    const std::string name = prefix_ + key;
    rows_.push_back(FieldDoc{name, type_text<W>(), FieldFacts::optional<T, Options...>,
                             FieldFacts::note_of(options...)});
    if constexpr (HasFields<W>) {
      describe<W>(name + ".");
    } else if constexpr (IsVector<W>::value && HasFields<typename IsVector<W>::Item>) {
      describe<typename IsVector<W>::Item>(name + "[].");
    }
  }

  template <class Problem>
  void check(const char*, const Problem&) {}

 private:
  template <class N>
  void describe(const std::string& prefix) {
    const N nested{};
    Describer inner(rows_, prefix);
    fields(inner, nested);
  }

  std::vector<FieldDoc>& rows_;
  std::string prefix_;
};

// Sets the properties and required keys of one object's schema.
class SchemaMaker {
 public:
  SchemaMaker(Json& properties, Json& required) : properties_(properties), required_(required) {}

  template <class T, class... Options>
  void operator()(const char* key, const T&, const Options&... options) {
    Json schema = schema_of<WrittenAs<T>>();
    if (const std::string note = FieldFacts::note_of(options...); !note.empty()) {
      schema["description"] = note;
    }
    properties_[key] = std::move(schema);
    if (!FieldFacts::optional<T, Options...>) required_.push_back(key);
  }

  template <class Problem>
  void check(const char*, const Problem&) {}

 private:
  Json& properties_;
  Json& required_;
};

template <class T>
Json object_schema() {
  Json properties = Json::object();
  Json required = Json::array();
  SchemaMaker maker(properties, required);
  const T value{};
  fields(maker, value);
  Json schema{{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

std::string journals_text(Journals in) {
  switch (in) {
    case Journals::Node:
      return "a node's";
    case Journals::Coordinator:
      return "the coordinator's";
    case Journals::Both:
      break;
  }
  return "a node's and the coordinator's";
}

// `text` with `|` escaped for a Markdown table cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

template <class E>
std::string event_section() {
  std::vector<FieldDoc> rows;
  Describer describer(rows, "");
  const E event{};
  fields(describer, event);
  std::string out = "### `" + std::string(E::kName) + "`\n\n" + E::kAbout + " In " +
                    journals_text(E::kIn) + " journal" + (E::kIn == Journals::Both ? "s" : "") +
                    ".\n\n";
  out += "| field | type | written | |\n|---|---|---|---|\n";
  for (const FieldDoc& row : rows) {
    out += "| `" + row.key + "` | " + row.type + " | " + (row.optional ? "optional" : "always") +
           (row.note.empty() ? " | |\n" : " | " + cell(row.note) + " |\n");
  }
  return out;
}

template <std::size_t... I>
std::string markdown(std::index_sequence<I...>) {
  std::string out = "| event | journals | what it records |\n|---|---|---|\n";
  auto index_row = [&]<class E>(const E*) {
    out += "| [`" + std::string(E::kName) + "`](#" + E::kName + ") | " + journals_text(E::kIn) +
           " | " + cell(E::kAbout) + " |\n";
  };
  (index_row(static_cast<const std::variant_alternative_t<I, Event>*>(nullptr)), ...);
  ((out += "\n" + event_section<std::variant_alternative_t<I, Event>>()), ...);
  return out;
}

template <std::size_t... I>
Json definitions(std::index_sequence<I...>) {
  Json defs = Json::object();
  auto define = [&]<class E>(const E*) {
    Json schema = object_schema<E>();
    Json properties = Json::object();
    properties["time"] = Json{{"$ref", "#/$defs/time"}};
    properties["event"] = Json{{"const", E::kName}};
    for (auto& [key, value] : schema["properties"].items()) properties[key] = value;
    Json required = Json::array({"time", "event"});
    if (schema.contains("required")) {
      for (const auto& key : schema["required"]) required.push_back(key);
    }
    defs[E::kName] = Json{{"description", E::kAbout},
                          {"type", "object"},
                          {"properties", std::move(properties)},
                          {"required", std::move(required)},
                          {"additionalProperties", false}};
  };
  (define(static_cast<const std::variant_alternative_t<I, Event>*>(nullptr)), ...);
  return defs;
}

constexpr auto kEvents = std::make_index_sequence<std::variant_size_v<Event>>{};

}  // namespace

std::string journal_markdown() { return markdown(kEvents); }

std::string journal_schema() {
  Json defs = Json::object();
  defs["time"] =
      Json{{"description", "UTC, milliseconds: 2026-01-02T03:04:05.678Z"},
           {"type", "string"},
           {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"}};
  Json events = definitions(kEvents);
  Json one_of = Json::array();
  for (auto& [name, schema] : events.items()) {
    one_of.push_back(Json{{"$ref", "#/$defs/" + name}});
    defs[name] = std::move(schema);
  }
  Json schema{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", "https://pai.dev/schemas/journal.schema.json"},
              {"title", "pai journal (events.jsonl), format " + std::to_string(kFormat) +
                            ": one record, one line; written by pai-launch, made from "
                            "launcher/logs/journal_events.h"},
              {"oneOf", std::move(one_of)},
              {"$defs", std::move(defs)}};
  return schema.dump(2) + "\n";
}

}  // namespace pai::launcher::journal
