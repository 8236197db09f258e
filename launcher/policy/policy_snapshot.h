// What a coordinator that takes over a job must know of the restart policy's past
// (docs/coordinator-ha.md, "The takeover"): each instance's restart count and whether it is
// over, and the same-error counts. The leader keeps it in etcd as JSON; the next one reads
// it back, and bad JSON there is an error that names the field, never a guess.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pai::launcher {

struct PolicySnapshot {
  /// Where an instance stands: still to run (running, stopping, backing off or stopped by a
  /// signal), succeeded, or failed and tolerated (maxToleratedFailureRate).
  enum class Outcome { Running, Succeeded, Tolerated };
  std::vector<int> restart_counts;  ///< per governed instance
  std::vector<Outcome> outcomes;    ///< per governed instance
  std::map<std::string, int> same_error;  ///< failures per error signature (maxSameError)
  bool operator==(const PolicySnapshot&) const = default;
};

class PolicySnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// {"restarts": [..], "outcomes": ["running" | "succeeded" | "tolerated", ..],
///  "sameError": {"exit:1": 2}}.
nlohmann::json to_json(const PolicySnapshot& snapshot);
/// The inverse; throws PolicySnapshotError naming the field for anything else (a missing or
/// mistyped field, lists of different lengths, a negative or huge count, an unknown
/// outcome), and for more than `max_instances` instances.
PolicySnapshot policy_snapshot_from_json(const nlohmann::json& json, std::size_t max_instances);

}  // namespace pai::launcher
