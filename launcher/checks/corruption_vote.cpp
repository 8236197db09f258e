#include "launcher/checks/corruption_vote.h"

#include <map>

namespace pai::checks {

VoteOutcome vote(const std::vector<Ballot>& ballots) {
  VoteOutcome outcome;
  outcome.voters = static_cast<int>(ballots.size());
  if (ballots.size() < 2) return outcome;
  std::map<std::uint64_t, int> counts;
  for (const auto& b : ballots) ++counts[b.digest];
  for (const auto& [digest, count] : counts) {
    if (2 * count > outcome.voters) {
      outcome.majority_digest = digest;
      outcome.majority_size = count;
    }
  }
  if (outcome.majority_size == 0) {
    outcome.kind = VoteOutcome::NoMajority;
    for (const auto& b : ballots) outcome.undecided.push_back(b.gpu);
    return outcome;
  }
  for (const auto& b : ballots)
    if (b.digest != outcome.majority_digest) outcome.outvoted.push_back(b.gpu);
  outcome.kind = outcome.outvoted.empty() ? VoteOutcome::Unanimous : VoteOutcome::Majority;
  return outcome;
}

}  // namespace pai::checks
