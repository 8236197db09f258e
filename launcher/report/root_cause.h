// The root cause of a job's end in its journal's own words: the record that ended it
// (job-failed with its reason, classification, matched line and failure summary; job-cancelled
// with who; job-succeeded; a node's finish), with what the job learnt on the way (diagnosis
// verdicts, the culprit hang forensics named, why it restarted). Nothing is re-classified.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "launcher/report/job_history.h"
#include "launcher/report/journal_reader.h"

namespace pai::launcher::report {

/// The events that end a job in a journal.
using JobEnd =
    std::variant<journal::JobSucceeded, journal::JobFailed, journal::JobCancelled, journal::Finish>;

/// What the journals said that bears on the root cause.
struct RootCauseEvidence {
  const JobEnd* end = nullptr;        ///< the record that ended the job; null: none
  std::int64_t job_restarts = 0;      ///< restarts of the job (decisions, JobHistory::job_restarts)
  std::vector<std::string> verdicts;  ///< the latest diagnosis verdicts, "CLASS (severity): ..."
  std::string stack_culprit;          ///< the evidence of the latest forensics that named one
  std::string failure_summary;        ///< the latest failure summary a launcher sent
  std::vector<std::pair<std::string, std::int64_t>>
      restart_reasons;  ///< reason, restarts of the job
  const KeyEvent* latest_event = nullptr;                             ///< for a job without an end
};

/// The root cause `evidence` tells; texts clipped to a few hundred bytes (the summary 16 KiB).
RootCause find_root_cause(const RootCauseEvidence& evidence);

}  // namespace pai::launcher::report
