// The root-cause summary printed when a job fails (design §6).
#pragma once

#include <string>

#include "launcher/policy/failure_classifier.h"

namespace pai::launcher {

/// Number of log lines the summary quotes.
inline constexpr int kSummaryLogLines = 15;

/// What is known about the failure that ended the job.
struct FailureReport {
  std::string job;       ///< job name
  std::string reason;    ///< the policy's reason (FailJob::reason)
  std::string instance;  ///< "worker-0", empty when no instance is to blame
  int rank = -1;         ///< global rank of the failed process; -1 = none (a hang)
  int local_rank = -1;
  std::string status;  ///< describe(ExitStatus), empty for a hang
  Classification classification;
  std::string last_lines;  ///< the last kSummaryLogLines lines of its output
  /// What the rank recorded in its error file (TORCHELASTIC_ERROR_FILE, error_file.h): the
  /// exception, and its traceback; empty when it recorded nothing.
  std::string error_message;
  std::string error_traceback;
  std::string log_path;  ///< the full log of the failed attempt
  /// The culprit hang forensics named from the ranks' stacks, with where they are; "" none.
  std::string culprit;
};

/// The multi-line summary, each line starting with "pai-launch: ", ending in a newline:
/// the reason, the rank and its exit code or signal, the exception from its error file, the
/// culprit named by the stacks, the classification, the matched line, the last lines of the
/// error file's traceback or else of its log (indented by "  | ") and where the full log is.
std::string format_failure_summary(const FailureReport& report);

}  // namespace pai::launcher
