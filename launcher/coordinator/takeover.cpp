#include "launcher/coordinator/takeover.h"

namespace pai::launcher::coordinator {

nlohmann::json to_json(const TakeoverState& state) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [node, why] : state.out) out[node] = why;
  return {{"policy", to_json(state.policy)},
          {"firstStartUnixMs", state.first_start_unix_ms},
          {"out", out}};
}

TakeoverState takeover_state_from_json(const nlohmann::json& json, std::size_t max_instances,
                                       std::size_t max_nodes) {
  if (!json.is_object()) throw TakeoverStateError("expected an object");
  TakeoverState state;
  const auto policy = json.find("policy");
  if (policy == json.end()) throw TakeoverStateError("policy: missing");
  try {
    state.policy = policy_snapshot_from_json(*policy, max_instances);
  } catch (const PolicySnapshotError& e) {
    const std::string what = e.what();
    throw TakeoverStateError((what.rfind("expected", 0) == 0 ? "policy: " : "policy.") + what);
  }
  const auto first = json.find("firstStartUnixMs");
  if (first == json.end() || !first->is_number_integer() || first->get<std::int64_t>() < 0) {
    throw TakeoverStateError("firstStartUnixMs: expected a time in ms since 1970");
  }
  state.first_start_unix_ms = first->get<std::int64_t>();
  const auto out = json.find("out");
  if (out == json.end() || !out->is_object()) throw TakeoverStateError("out: expected an object");
  if (out->size() > max_nodes) {
    throw TakeoverStateError("out: " + std::to_string(out->size()) +
                             " nodes, more than the job's " + std::to_string(max_nodes));
  }
  for (const auto& [node, why] : out->items()) {
    if (!why.is_string()) throw TakeoverStateError("out." + node + ": expected a reason");
    state.out[node] = why.get<std::string>();
  }
  return state;
}

}  // namespace pai::launcher::coordinator
