// Goodput accounting (docs/goodput.md): every rank-second of a job, from its journals' first
// record to their last, given exactly one cause — start-up, rendezvous and checks, framework
// init, productive steps, checkpoint stall, hang detection wait, stop and teardown, restart
// backoff, rollback, straggler loss, idle spare, running without step data, unknown — per
// attempt and for the job, and the ETTR (productive / all). Pure: it takes parsed journal
// records (journal.h) one at a time and keeps a few numbers per rank, whatever the journals'
// size; reading the log folder is report/log_folder.h's.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "launcher/logs/journal.h"

namespace pai::launcher::goodput {

/// Where a rank-second went (docs/goodput.md defines each).
enum class Cause {
  StartUp,            ///< before the node's launcher started; an attempt's start to its process
  RendezvousChecks,   ///< launcher started to the attempt's start: checks, joining, assignment
  FrameworkInit,      ///< the process started to its first step
  Productive,         ///< from the first step on, while steps move
  CheckpointStall,    ///< a checkpoint being saved (checkpoint-started to its end)
  HangWait,           ///< the last progress to the hang verdict
  StopTeardown,       ///< a stop, the hang verdict or an exit to the next decision or the end
  RestartBackoff,     ///< a restart decision to the end of its backoff
  Rollback,           ///< steps computed again after resuming from an older checkpoint
  StragglerLoss,      ///< others waiting for a slow rank; 0 (the journals carry no evidence)
  IdleSpare,          ///< a spare node's ranks
  RunningNoStepData,  ///< a process running in a job that recorded no step at all
  Unknown,            ///< time no journal covers (after a journal ends without an end record)
};

/// The number of Cause values.
constexpr int kCauses = 13;

/// The cause's name in tables, JSON and metrics: "start-up", "productive", ...
const char* to_string(Cause cause);

/// Rank-seconds per cause.
struct CauseSeconds {
  std::array<double, kCauses> seconds{};
  double& operator[](Cause c) { return seconds[static_cast<std::size_t>(c)]; }
  double operator[](Cause c) const { return seconds[static_cast<std::size_t>(c)]; }
  /// The sum over all causes.
  double total() const;
};

/// One attempt of the job (the attempt number of `start` records): from the first rank that
/// entered it to the next attempt's start, or the job's end. Its teardown and the backoff
/// before the next attempt are its own.
struct AttemptAccount {
  int attempt = 0;
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
  CauseSeconds causes;
  /// Its ranks of warm roles (faultTolerance.warmStart, process-started's `warm`): forked
  /// from a warm interpreter, or started cold.
  std::int64_t warm_starts = 0;
  std::int64_t cold_starts = 0;
};

/// A job's account.
struct Account {
  std::int64_t first_ms = 0;    ///< the journals' earliest record
  std::int64_t last_ms = 0;     ///< their latest
  std::int64_t rank_slots = 0;  ///< ranks of every instance, and a spare node's as many each
  CauseSeconds causes;          ///< sums to rank_slots × wall seconds
  std::vector<AttemptAccount> attempts;  ///< in attempt order; their causes sum to `causes`
  bool step_data = false;                ///< some rank recorded a step
  std::int64_t skipped_lines = 0;        ///< journal lines that were no record this version reads
  /// Saves that stalled an instance's ranks and ended (checkpoint-started to its checkpoint,
  /// checkpoint-failed or checkpoint-abandoned), and their wall seconds summed: the measured
  /// checkpoint cost is their mean (checkpoint_cost_seconds).
  std::int64_t checkpoint_saves = 0;
  double checkpoint_save_seconds = 0;
  std::vector<std::string> notes;        ///< what the account could not measure, and why
  /// (last_ms - first_ms) / 1000.
  double wall_seconds() const;
  /// Productive rank-seconds over all rank-seconds; 0 for an empty account.
  double ettr() const;
  /// The mean wall seconds of a save that stalled the ranks; 0 before one ended.
  double checkpoint_cost_seconds() const;
};

/// Builds an Account from journals' records. Feed the coordinator's journal (when there is one)
/// first: its restart decisions and hang verdicts are applied to the instances' journals that
/// follow, in time order with their own records.
class Accountant {
 public:
  Accountant();
  ~Accountant();
  Accountant(const Accountant&) = delete;
  Accountant& operator=(const Accountant&) = delete;

  /// Starts a journal: `coordinator` for the coordinator's, else an instance's (or a spare's,
  /// "spare-<node>") whose folder is named `folder`.
  void begin_journal(bool coordinator, const std::string& folder);
  /// One record of the current journal, in file order.
  void add(const journal::Entry& entry);
  /// Ends the current journal; `skipped_lines` are its lines that were no record read.
  void end_journal(std::int64_t skipped_lines);

  /// The account of everything added, of a job that ended: a rank whose journal stops without
  /// saying it ended is "unknown" from its last record on.
  Account finish() const;
  /// The account of a job still running, as of `now_ms` (the coordinator's, docs/goodput.md
  /// "While the job runs"): the wall time runs to `now_ms` (or the latest record, if later),
  /// and every rank still in a cause stays in it until then.
  Account finish_live(std::int64_t now_ms) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Account finish_at(std::int64_t live_now_ms) const;
};

}  // namespace pai::launcher::goodput
