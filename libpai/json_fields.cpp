#include "libpai/json_fields.h"

#include "libpai/duration.h"
#include "libpai/plan_json.h"

namespace pai {

// Paths are built only when an error is reported: a 10,000-node plan reads ~100,000
// members, and building each one's path up front would dominate the load time.

JsonFields::JsonFields(const json& object, std::string path, const std::string& file)
    : object_(object), path_(std::move(path)), file_(file) {
  if (!object_.is_object()) fail(path_, "expected an object");
}

const JsonFields::json& JsonFields::get(const char* key) const {
  auto it = object_.find(key);
  if (it == object_.end()) fail(child(key), "field is missing");
  seen_.push_back(key);
  return *it;
}

std::string JsonFields::string(const char* key) const {
  const json& v = get(key);
  if (!v.is_string()) fail(child(key), "expected a string");
  return v.get<std::string>();
}

bool JsonFields::boolean(const char* key) const {
  const json& v = get(key);
  if (!v.is_boolean()) fail(child(key), "expected a boolean");
  return v.get<bool>();
}

double JsonFields::number(const char* key) const {
  const json& v = get(key);
  if (!v.is_number()) fail(child(key), "expected a number");
  return v.get<double>();
}

std::int64_t JsonFields::int64(const char* key) const {
  return int64_at(get(key), [&] { return child(key); });
}

std::int64_t JsonFields::seconds(const char* key) const {
  const std::int64_t n = int64(key);
  if (n < 0 || n > kMaxDurationSeconds) {
    fail(child(key), "expected seconds from 0 to " + std::to_string(kMaxDurationSeconds) + " (" +
                         format_duration(kMaxDurationSeconds) + "), got " + std::to_string(n));
  }
  return n;
}

int JsonFields::integer(const char* key, int min) const {
  return integer_at(
      get(key), [&] { return child(key); }, min);
}

JsonFields JsonFields::object(const char* key) const {
  return JsonFields(get(key), child(key), file_);
}

const JsonFields::json& JsonFields::array(const char* key) const {
  const json& v = get(key);
  if (!v.is_array()) fail(child(key), "expected an array");
  return v;
}

std::vector<std::string> JsonFields::strings(const char* key) const {
  const json& list = array(key);
  std::vector<std::string> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) fail(item(key, i), "expected a string");
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

std::string JsonFields::child(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

std::string JsonFields::item(const char* key, std::size_t i) const {
  return child(key) + "[" + std::to_string(i) + "]";
}

void JsonFields::reject_unknown() const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    bool known = false;
    for (const char* key : seen_) known = known || it.key() == key;
    if (!known) fail(child(it.key()), "unknown field");
  }
}

void JsonFields::fail(const std::string& path, const std::string& message) const {
  throw PlanError(file_ + ": " + path + ": " + message);
}

}  // namespace pai
