#include "launcher/checks/check_result_json.h"

#include <nlohmann/json.hpp>

namespace pai::checks {
namespace {

using nlohmann::json;

json to_object(const CheckResult& r) {
  return json{{"name", r.name},     {"status", to_string(r.status)}, {"summary", r.summary},
              {"figure", r.figure}, {"seconds", r.seconds},          {"detail", r.detail},
              {"facts", r.facts}};
}

const json& field(const json& object, const char* key, json::value_t type, const std::string& at) {
  auto it = object.find(key);
  if (it == object.end())
    throw CheckResultError("check result" + at + ": missing field \"" + key + "\"");
  bool ok = it->type() == type || (type == json::value_t::number_float && it->is_number());
  if (!ok)
    throw CheckResultError("check result" + at + ": field \"" + key + "\" has the wrong type");
  return *it;
}

CheckResult from_object(const json& o, const std::string& at) {
  if (!o.is_object()) throw CheckResultError("check result" + at + ": expected an object");
  CheckResult r;
  r.name = field(o, "name", json::value_t::string, at).get<std::string>();
  auto status = field(o, "status", json::value_t::string, at).get<std::string>();
  if (status == "passed") {
    r.status = CheckResult::Passed;
  } else if (status == "failed") {
    r.status = CheckResult::Failed;
  } else if (status == "skipped") {
    r.status = CheckResult::Skipped;
  } else {
    throw CheckResultError("check result" + at + ": unknown status \"" + status + "\"");
  }
  r.summary = field(o, "summary", json::value_t::string, at).get<std::string>();
  r.figure = field(o, "figure", json::value_t::string, at).get<std::string>();
  r.seconds = field(o, "seconds", json::value_t::number_float, at).get<double>();
  r.detail = field(o, "detail", json::value_t::string, at).get<std::string>();
  for (const auto& [key, value] : field(o, "facts", json::value_t::object, at).items()) {
    if (!value.is_string())
      throw CheckResultError("check result" + at + ": fact \"" + key + "\" is not a string");
    r.facts[key] = value.get<std::string>();
  }
  return r;
}

json parse(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw CheckResultError(std::string("check result: invalid JSON: ") + e.what());
  }
}

// Output tails are arbitrary bytes; invalid UTF-8 is replaced rather than thrown on.
std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string to_json(const CheckResult& result) { return dump(to_object(result)); }

std::string to_json(const std::vector<CheckResult>& results) {
  json array = json::array();
  for (const auto& r : results) array.push_back(to_object(r));
  return dump(array);
}

CheckResult result_from_json(const std::string& text) { return from_object(parse(text), ""); }

std::vector<CheckResult> results_from_json(const std::string& text) {
  json array = parse(text);
  if (!array.is_array()) throw CheckResultError("check results: expected an array");
  std::vector<CheckResult> results;
  for (std::size_t i = 0; i < array.size(); ++i)
    results.push_back(from_object(array[i], " " + std::to_string(i)));
  return results;
}

}  // namespace pai::checks
