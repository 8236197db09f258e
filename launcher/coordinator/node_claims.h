// Node claims: which node of the plan a launcher is, for launchers that cannot tell
// (`pai-launch torchrun` without --node-rank), in the order they ask, as torchrun's c10d
// rendezvous hands out node ranks. Internal to launcher/coordinator/.
#pragma once

#include <map>
#include <string>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/job_pause.h"

namespace pai::launcher::coordinator {

class NodeClaims {
 public:
  explicit NodeClaims(const CoordinatorState& state) : state_(state) {}

  /// The node for the launcher `identity`, asking on control session `session`: the one it
  /// claimed before, else the first host of the plan, then spare, other than the
  /// coordinator's own that has no launcher, is not excluded and has no other claim. A claim
  /// holds while its session is open: the claimant keeps it open until it ends, so a claimant
  /// that died frees its node at once. The answer's text is the node's name, or why none is
  /// left.
  ControlAnswer claim(const std::string& identity, int session);

 private:
  struct Claim {
    std::string identity;
    int session = -1;
  };

  const CoordinatorState& state_;
  std::map<int, Claim> claims_;  // node index -> its claim
};

}  // namespace pai::launcher::coordinator
