#include "launcher/coordinator/node_claims.h"

namespace pai::launcher::coordinator {

ControlAnswer NodeClaims::claim(const std::string& identity, int session) {
  if (identity.empty()) return {false, "claim: an empty identity"};
  // A claim whose claimant is gone frees its node.
  for (auto it = claims_.begin(); it != claims_.end();) {
    it = state_.sessions.count(it->second.session) == 0 ? claims_.erase(it) : std::next(it);
  }
  for (auto& [node, claim] : claims_) {
    // Asked again (its answer was lost): the same node, unless another launcher joined as it.
    if (claim.identity == identity && state_.nodes[static_cast<std::size_t>(node)].session < 0) {
      claim.session = session;
      return {true, state_.nodes[static_cast<std::size_t>(node)].name};
    }
  }
  for (std::size_t n = 0; n < state_.nodes.size(); ++n) {
    const Node& node = state_.nodes[n];
    if (node.name == state_.plan.coordinator.host || node.session >= 0 || !node.excluded.empty() ||
        claims_.count(static_cast<int>(n)) > 0) {
      continue;
    }
    claims_[static_cast<int>(n)] = Claim{identity, session};
    return {true, node.name};
  }
  return {false, "every node of job " + state_.plan.name + " (" +
                     std::to_string(state_.nodes.size()) +
                     " with the spares) has a launcher or a claim: is this launcher one too "
                     "many, or one of another job with the same name?"};
}

}  // namespace pai::launcher::coordinator
