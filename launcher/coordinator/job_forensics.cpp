#include "launcher/coordinator/job_forensics.h"

#include <set>

#include "libpai/enum_names.h"

namespace pai::launcher::coordinator {

JobForensics::JobForensics(const CoordinatorState& state) : state_(state) {}

JobForensics::Verdict JobForensics::observe(int node, const net::Forensics& message) {
  const std::string where =
      state_.nodes[static_cast<std::size_t>(node)].name + ":" + message.folder;
  Verdict verdict;
  for (const net::RankStacks& r : message.ranks) {
    // The parser let only the three names through.
    const StackPlace place = enum_from_string<StackPlace>(r.place).value_or(StackPlace::Unknown);
    const RankStackVerdict stacks{static_cast<int>(r.rank), StackVerdict{place, r.frame}};
    ranks_[stacks.rank] = Reported{stacks, where};
    verdict.reported.push_back(stacks);
  }
  std::vector<RankStackVerdict> all;
  for (const auto& [rank, reported] : ranks_) all.push_back(reported.verdict);
  verdict.culprits = stack_culprits(all);
  verdict.changed = verdict.culprits != culprits_;
  culprits_ = verdict.culprits;
  evidence_.clear();
  if (!culprits_.empty()) {
    std::set<std::string> folders;
    for (int rank : culprits_) folders.insert(ranks_.at(rank).where);
    evidence_ = stack_evidence(all) + "; stacks in";
    for (const std::string& folder : folders) evidence_ += " " + folder;
  }
  verdict.evidence = evidence_;
  return verdict;
}

void JobForensics::restarted(int instance) {
  const Placement& p = state_.placed.placements[static_cast<std::size_t>(instance)];
  for (int r = p.first_rank; r <= last_rank(state_.placed, p); ++r) ranks_.erase(r);
  culprits_.clear();
  evidence_.clear();
}

}  // namespace pai::launcher::coordinator
