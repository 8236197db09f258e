// Knowing the culprit from the stacks (design §12): after a hang, each launcher collects its
// ranks' stacks and reports where each stood (`forensics`); gathered across the job, the
// ranks outside any collective while others wait in one are the culprits, with or without
// telemetry. Internal to launcher/coordinator/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/stack_verdict.h"

namespace pai::launcher::coordinator {

class JobForensics {
 public:
  /// What the job's reports say once one more came.
  struct Verdict {
    std::vector<RankStackVerdict> reported;  ///< this report's ranks
    std::vector<int> culprits;               ///< stack_culprits() of every rank reported
    std::string evidence;  ///< stack_evidence() with the culprits' nodes and folders
    bool changed = false;  ///< the culprits differ from before this report
  };

  explicit JobForensics(const CoordinatorState& state);

  /// The report of `node` (already checked to be about its own instance and ranks).
  Verdict observe(int node, const net::Forensics& message);
  /// The instance's ranks start again: their stacks are of the past.
  void restarted(int instance);
  /// The evidence naming the culprits of the stacks reported since the last restart; ""
  /// when they name none.
  const std::string& evidence() const { return evidence_; }

 private:
  struct Reported {
    RankStackVerdict verdict;
    std::string where;  // "node-1: /runs/x/logs/forensics/attempt-0"
  };
  const CoordinatorState& state_;
  std::map<int, Reported> ranks_;  // by global rank
  std::vector<int> culprits_;
  std::string evidence_;
};

}  // namespace pai::launcher::coordinator
