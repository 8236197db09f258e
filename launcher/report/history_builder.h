// Building a JobHistory (job_history.h) from journals' records, one record at a time: what
// each record means for the timeline (attempts, marks, steps) and for the root cause. Memory
// stays bounded by the job's size, not the journals'.
#pragma once

#include <memory>
#include <string>

#include "launcher/report/job_history.h"
#include "launcher/report/journal_reader.h"

namespace pai::launcher::report {

/// Builds a JobHistory from journals' records. Feed the coordinator's journal (when there is
/// one) first: with it, decisions about instances (starts, failures, restarts, hangs, the end)
/// are taken from the coordinator alone and the instances' journals add what only they know
/// (checks, messages, checkpoints, steps), so nothing is counted twice.
class JobHistoryBuilder {
 public:
  JobHistoryBuilder();
  ~JobHistoryBuilder();
  JobHistoryBuilder(const JobHistoryBuilder&) = delete;
  JobHistoryBuilder& operator=(const JobHistoryBuilder&) = delete;

  /// Starts a journal: `coordinator` for the coordinator's, else an instance's (or a spare's)
  /// whose folder is named `folder` ("worker-0", "spare-node-4").
  void begin_journal(bool coordinator, const std::string& folder);
  /// One record of the current journal, in file order.
  void add(const journal::Entry& entry);
  /// Ends the current journal with what reading it found.
  void end_journal(const JournalInfo& info);

  /// The history of everything added.
  JobHistory finish(const std::string& log_dir);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher::report
