// What a coordinator that takes over a job must know (docs/coordinator-ha.md, "The
// takeover"): the state its predecessor kept in etcd while it led, and which node was lost
// with it. Written as JSON by the leader; read back by the next one, which refuses bad JSON
// naming the field rather than guess.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "launcher/policy/policy_snapshot.h"

namespace pai::launcher::coordinator {

/// The leader's state, as of the job's latest policy event.
struct TakeoverState {
  PolicySnapshot policy;
  /// When the job first started, on the leader's wall clock (timeLimit runs from then); 0
  /// while it has not started.
  std::int64_t first_start_unix_ms = 0;
  /// Nodes out of the job and why: excluded by a check or a diagnosis, or replaced by a spare.
  std::map<std::string, std::string> out;
  bool operator==(const TakeoverState&) const = default;
};

class TakeoverStateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// {"policy": {...}, "firstStartUnixMs": N, "out": {"node-3": "why"}}.
nlohmann::json to_json(const TakeoverState& state);
/// The inverse; throws TakeoverStateError naming the field (the policy's as
/// "policy.<field>"), and for more than `max_instances` instances or more than `max_nodes`
/// nodes out.
TakeoverState takeover_state_from_json(const nlohmann::json& json, std::size_t max_instances,
                                       std::size_t max_nodes);

/// A coordinator taking over a job whose coordinator was lost.
struct Takeover {
  std::string lost_node;  ///< the lost coordinator's node: out of the job from now on
  /// Its state; default (never started) when it left none: the job starts from the beginning.
  TakeoverState state;
};

}  // namespace pai::launcher::coordinator
