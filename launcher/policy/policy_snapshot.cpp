#include "launcher/policy/policy_snapshot.h"

#include <cstdint>

namespace pai::launcher {

namespace {

// A count beyond any restart budget a plan can hold (maxRestarts is an int32).
constexpr std::int64_t kMaxCount = INT32_MAX;

const char* outcome_name(PolicySnapshot::Outcome outcome) {
  switch (outcome) {
    case PolicySnapshot::Outcome::Running:
      return "running";
    case PolicySnapshot::Outcome::Succeeded:
      return "succeeded";
    case PolicySnapshot::Outcome::Tolerated:
      return "tolerated";
  }
  return "running";
}

int count_of(const nlohmann::json& value, const std::string& field) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
      value.get<std::int64_t>() > kMaxCount) {
    throw PolicySnapshotError(field + ": expected a count from 0 to " + std::to_string(kMaxCount) +
                              ", got " + value.dump());
  }
  return static_cast<int>(value.get<std::int64_t>());
}

const nlohmann::json& member(const nlohmann::json& json, const char* name,
                             nlohmann::json::value_t type, const char* what) {
  const auto it = json.find(name);
  if (it == json.end() || it->type() != type) {
    throw PolicySnapshotError(std::string(name) + ": expected " + what);
  }
  return *it;
}

}  // namespace

nlohmann::json to_json(const PolicySnapshot& snapshot) {
  nlohmann::json outcomes = nlohmann::json::array();
  for (const auto outcome : snapshot.outcomes) outcomes.push_back(outcome_name(outcome));
  nlohmann::json same = nlohmann::json::object();
  for (const auto& [signature, count] : snapshot.same_error) same[signature] = count;
  return {{"restarts", snapshot.restart_counts}, {"outcomes", outcomes}, {"sameError", same}};
}

PolicySnapshot policy_snapshot_from_json(const nlohmann::json& json, std::size_t max_instances) {
  if (!json.is_object()) throw PolicySnapshotError("expected an object, got " + json.dump());
  const auto& restarts = member(json, "restarts", nlohmann::json::value_t::array, "a list");
  const auto& outcomes = member(json, "outcomes", nlohmann::json::value_t::array, "a list");
  const auto& same = member(json, "sameError", nlohmann::json::value_t::object, "an object");
  if (restarts.size() != outcomes.size()) {
    throw PolicySnapshotError("restarts and outcomes: " + std::to_string(restarts.size()) +
                              " and " + std::to_string(outcomes.size()) +
                              " instances: expected as many");
  }
  if (restarts.size() > max_instances) {
    throw PolicySnapshotError("restarts: " + std::to_string(restarts.size()) +
                              " instances, more than the job's " + std::to_string(max_instances));
  }
  PolicySnapshot out;
  for (std::size_t i = 0; i < restarts.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    out.restart_counts.push_back(count_of(restarts[i], "restarts" + at));
    const std::string name = outcomes[i].is_string() ? outcomes[i].get<std::string>() : "";
    if (name == "running") {
      out.outcomes.push_back(PolicySnapshot::Outcome::Running);
    } else if (name == "succeeded") {
      out.outcomes.push_back(PolicySnapshot::Outcome::Succeeded);
    } else if (name == "tolerated") {
      out.outcomes.push_back(PolicySnapshot::Outcome::Tolerated);
    } else {
      throw PolicySnapshotError("outcomes" + at +
                                ": expected running, succeeded or tolerated, got " +
                                outcomes[i].dump());
    }
  }
  for (const auto& [signature, count] : same.items()) {
    out.same_error[signature] = count_of(count, "sameError." + signature);
  }
  return out;
}

}  // namespace pai::launcher
