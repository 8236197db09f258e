#include "compiler/document/parameters.h"

#include <string_view>
#include <vector>

#include "compiler/document/did_you_mean.h"

namespace pai {

namespace {

constexpr std::string_view kOpen = "${parameters.";

std::string undefined_message(const std::string& name,
                              const std::map<std::string, std::string>& parameters) {
  std::vector<std::string> names;
  for (const auto& [defined, value] : parameters) names.push_back(defined);
  std::string message =
      "undefined parameter \"" + name + "\" in ${parameters." + name + "} (";
  const std::string suggestion = closest_match(name, names);
  if (!suggestion.empty()) message += "did you mean \"" + suggestion + "\"? ";
  if (names.empty()) {
    message += "the spec defines no parameters";
  } else {
    message += "defined: ";
    for (size_t i = 0; i < names.size(); ++i) message += (i ? ", " : "") + names[i];
  }
  return message + ")";
}

}  // namespace

std::string substitute_parameters(const std::string& text,
                                  const std::map<std::string, std::string>& parameters,
                                  const Location& loc, const std::string& path,
                                  Diagnostics& diags) {
  return substitute_parameters(
      text, parameters, [&](size_t) { return loc; }, path, diags);
}

std::string substitute_parameters(const std::string& text,
                                  const std::map<std::string, std::string>& parameters,
                                  const TextLocator& locate, const std::string& path,
                                  Diagnostics& diags) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find(kOpen, pos);
    const size_t close =
        open == std::string::npos ? std::string::npos : text.find('}', open + kOpen.size());
    if (close == std::string::npos) {
      out.append(text, pos, std::string::npos);
      return out;
    }
    out.append(text, pos, open - pos);
    const std::string name = text.substr(open + kOpen.size(), close - open - kOpen.size());
    const auto it = parameters.find(name);
    if (it != parameters.end()) {
      out += it->second;
    } else {
      diags.error(locate(open), path, undefined_message(name, parameters));
      out.append(text, open, close + 1 - open);
    }
    pos = close + 1;
  }
}

}  // namespace pai
