#include <sys/stat.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "launcher/supervisor/supervisor_impl.h"

namespace pai::launcher {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : "; ") + item;
  return out;
}

}  // namespace

std::optional<RankTelemetrySummary> Supervisor::Impl::telemetry_standing(Rank& rank,
                                                                         Clock::time_point now) {
  if (!rank.telemetry) return std::nullopt;
  return rank.telemetry->standing(now);
}

void Supervisor::Impl::start_forensics(int i, Clock::time_point now, Clock::time_point until) {
  Instance& inst = instances[i];
  if (inst.forensics) {
    dump_stacks(inst);
    return;
  }
  // The logs' sizes before the dump signals: what they gain after is the ranks' dumps.
  std::vector<ForensicsRank> ranks;
  for (Rank& rank : inst.ranks) {
    if (!running(rank)) continue;
    if (rank.output) rank.output->drain();
    struct stat st {};
    const std::int64_t size = ::stat(rank.log_path.c_str(), &st) == 0 ? st.st_size : 0;
    ranks.push_back(ForensicsRank{rank.global_rank, rank.local_rank, rank.pid, rank.log_path, size,
                                  telemetry_standing(rank, now)});
  }
  dump_stacks(inst);
  ForensicsOptions forensics;
  forensics.folder = options.log_dir + "/forensics/attempt-" + std::to_string(inst.attempt);
  forensics.instance = inst.name;
  forensics.tools = forensics_tools;
  inst.forensics = std::make_unique<Forensics>(std::move(forensics), std::move(ranks), now, until);
}

bool Supervisor::Impl::forensics_child_exit(int pid, int status) {
  for (int i = 0; i < static_cast<int>(instances.size()); ++i) {
    Instance& inst = instances[i];
    if (!inst.forensics || !inst.forensics->on_child_exit(pid, status)) continue;
    if (inst.forensics->ready(Clock::now())) complete_forensics(i);
    return true;
  }
  return false;
}

void Supervisor::Impl::complete_forensics(int i) {
  Instance& inst = instances[i];
  // What the ranks wrote after the dump signals, faulthandler's stacks among it, is in their
  // pipes until read.
  for (Rank& rank : inst.ranks) {
    if (running(rank) && rank.output) rank.output->drain();
  }
  const Forensics::Report report = inst.forensics->finish();
  inst.forensics.reset();
  // The stacks are in: the stop signal need not wait out the rest of the stack-dump window
  // (3 s, where collecting takes about half a second), unless a checkpoint holds it.
  const auto now = Clock::now();
  if (inst.dumps_until && *inst.dumps_until > now) {
    inst.dumps_until = now;
    if (inst.stopping && inst.signal_at && inst.checkpoints_saving.empty()) inst.signal_at = now;
  }
  for (const RankStackVerdict& r : report.ranks) stack_verdicts[r.rank] = r;
  std::vector<RankStackVerdict> node;
  for (const auto& [rank, verdict] : stack_verdicts) node.push_back(verdict);
  const std::vector<int> culprits = stack_culprits(node);
  const std::string evidence = stack_evidence(node);
  events.record(journal::Forensics{.instance = inst.name,
                                   .attempt = inst.attempt,
                                   .folder = report.folder,
                                   .in_collective = ranks_at(report.ranks, StackPlace::Collective),
                                   .outside = ranks_at(report.ranks, StackPlace::Outside),
                                   .unknown = ranks_at(report.ranks, StackPlace::Unknown),
                                   .culprit = culprits.empty() ? -1 : culprits.front(),
                                   .evidence = evidence,
                                   .errors = joined(report.errors)});
  for (const std::string& error : report.errors) say("warning: hang forensics: " + error);
  if (evidence.empty()) {
    say(inst.name + ": hang forensics in " + report.folder +
        ": the stacks name no culprit (in a collective: ranks [" +
        ranks_at(report.ranks, StackPlace::Collective) + "], outside: [" +
        ranks_at(report.ranks, StackPlace::Outside) + "], unknown: [" +
        ranks_at(report.ranks, StackPlace::Unknown) + "])");
  } else {
    say(inst.name + ": hang forensics in " + report.folder + ": " + evidence);
  }
  if (!evidence.empty()) {
    stack_culprit =
        evidence + (report.kept ? "; stacks in " + report.folder : "; the stacks were not kept");
  }
  if (hooks != nullptr) hooks->forensics(i, inst.attempt, report);
}

}  // namespace pai::launcher
