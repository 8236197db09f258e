#include "compiler/openpai/templates.h"

#include <cstddef>

#include "compiler/document/did_you_mean.h"

namespace pai {

namespace {

std::vector<std::string> keys_of(const std::map<std::string, Location>& names) {
  std::vector<std::string> keys;
  for (const auto& [name, loc] : names) keys.push_back(name);
  return keys;
}

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") + 1 - first);
}

// A scalar as OpenPAI's JavaScript would print it: lists joined with commas.
bool scalar_text(const Node& node, std::string* out) {
  if (node.is_scalar()) {
    *out = node.scalar;
    return true;
  }
  if (!node.is_sequence()) return false;
  out->clear();
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    if (!node.items[i].is_scalar()) return false;
    *out += (i ? "," : "") + node.items[i].scalar;
  }
  return true;
}

// One template, `<% ... %>` as `whole` with `inner` its trimmed content.
class Template {
 public:
  Template(const TemplateScope& scope, std::string whole, std::string inner)
      : scope_(scope), whole_(std::move(whole)), inner_(std::move(inner)) {}

  // The rendered text, or "" with `error` set.
  std::string render(std::string* error) const {
    const std::size_t dot = inner_.find('.');
    const std::string object = dot == std::string::npos ? inner_ : inner_.substr(0, dot);
    const std::string field = dot == std::string::npos ? "" : inner_.substr(dot + 1);
    if (object == "$parameters" || object == "$secrets") return reference(object, field, error);
    const auto it = scope_.prerequisites.find(object.empty() ? "" : object.substr(1));
    if (object.empty() || object[0] != '$' || field.empty() ||
        (object != "$data" && object != "$script" && object != "$output")) {
      *error = "unsupported OpenPAI template " + whole_ +
               ": only $parameters, $secrets, $data, $script and $output are rendered";
      return "";
    }
    if (it == scope_.prerequisites.end()) {
      *error = "template " + whole_ + " names the task role's " + object.substr(1) +
               " prerequisite, but task role " + scope_.role + " has no " + object.substr(1) +
               " field";
      return "";
    }
    return prerequisite_field(*it->second, field, error);
  }

 private:
  std::string reference(const std::string& object, const std::string& name,
                        std::string* error) const {
    const bool secret = object == "$secrets";
    const auto& names = secret ? *scope_.secrets : *scope_.parameters;
    if (!is_env_name(name)) {
      *error = "unsupported OpenPAI template " + whole_ + ": expected " + object + ".NAME";
      return "";
    }
    if (!names.count(name)) {
      *error = std::string("undefined ") + (secret ? "secret " : "parameter ") + quote(name) +
               " in " + whole_ +
               defined_names_hint(
                   name, keys_of(names),
                   secret ? "the file defines no secrets" : "the file defines no parameters");
      return "";
    }
    return "${parameters." + name + "}";
  }

  // `field` is NAME or NAME[INDEX] of the prerequisite mapping.
  std::string prerequisite_field(const Node& prerequisite, const std::string& field,
                                 std::string* error) const {
    const std::size_t bracket = field.find('[');
    const std::string name = field.substr(0, bracket);
    const Node* value = prerequisite.find(name);
    if (value != nullptr && bracket != std::string::npos) value = item(*value, field, bracket);
    std::string text;
    if (value == nullptr || !scalar_text(*value, &text)) {
      *error = "template " + whole_ + ": the prerequisite has no text field " + quote(field);
      return "";
    }
    return text;
  }

  static const Node* item(const Node& list, const std::string& field, std::size_t bracket) {
    const std::size_t close = field.find(']', bracket);
    if (!list.is_sequence() || close != field.size() - 1 || close == bracket + 1) return nullptr;
    std::size_t index = 0;
    for (std::size_t i = bracket + 1; i < close; ++i) {
      if (field[i] < '0' || field[i] > '9' || index > list.items.size()) return nullptr;
      index = index * 10 + static_cast<std::size_t>(field[i] - '0');
    }
    return index < list.items.size() ? &list.items[index] : nullptr;
  }

  const TemplateScope& scope_;
  std::string whole_;
  std::string inner_;
};

}  // namespace

std::string defined_names_hint(const std::string& name, const std::vector<std::string>& defined,
                               const std::string& none) {
  if (defined.empty()) return " (" + none + ")";
  std::string hint = " (";
  const std::string suggestion = closest_match(name, defined);
  if (!suggestion.empty()) hint += "did you mean \"" + suggestion + "\"? ";
  hint += "defined: ";
  for (std::size_t i = 0; i < defined.size(); ++i) hint += (i ? ", " : "") + defined[i];
  return hint + ")";
}

std::string render_openpai_templates(const Node& item, const std::string& path,
                                     const TemplateScope& scope, FieldReader& reader,
                                     Diagnostics& diags) {
  const std::string& text = item.scalar;
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t open = text.find("<%", pos);
    const std::size_t close = open == std::string::npos ? open : text.find("%>", open + 2);
    if (close == std::string::npos) break;
    out.append(text, pos, open - pos);
    const std::string whole = text.substr(open, close + 2 - open);
    pos = close + 2;
    std::string error;
    const std::string rendered =
        Template(scope, whole, trimmed(text.substr(open + 2, close - open - 2))).render(&error);
    if (!error.empty()) {
      diags.error(reader.locate(item, open), path, error);
      out += whole;
      continue;
    }
    out += rendered;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

}  // namespace pai
