// A job's log folder (docs/launch.md, "Logs and the journal") read into a JobHistory: the coordinator's journal
// (`coordinator/events.jsonl`) and every instance's and spare's (`<folder>/events.jsonl`).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "launcher/report/drill_scorecard.h"
#include "launcher/report/job_history.h"

namespace pai::launcher::report {

/// A log folder that holds nothing to report on; the message names the folder or the file.
class LogFolderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The journals of `log_dir`, the coordinator's first, then the others in natural order:
/// `<log_dir>/*/events.jsonl`, or `<log_dir>/events.jsonl` itself when `log_dir` is one
/// instance's folder. Throws LogFolderError when `log_dir` cannot be read or holds none.
std::vector<std::string> find_journals(const std::string& log_dir);

/// Reads every journal of `log_dir` (streamed: memory does not grow with their size), with
/// the goodput account of its records (launcher/logs/goodput.h) in JobHistory::goodput.
/// Throws LogFolderError when there is no journal, when one cannot be read, or when none
/// holds a single record ("LOG_DIR/worker-0/events.jsonl: the journal is empty").
JobHistory read_log_folder(const std::string& log_dir);

/// The goodput account of a job still running (goodput::Accountant::finish_live), from the
/// journals of `log_dir` that this host can read.
struct LiveAccount {
  goodput::Account account;
  int journals = 0;  ///< the launchers' journals read (instances and spares; not the coordinator's)
};

/// Reads every journal of `log_dir` into a LiveAccount as of `now_ms`. Throws LogFolderError
/// when `log_dir` or a journal cannot be read, or holds no journal.
LiveAccount read_live_goodput(const std::string& log_dir, std::int64_t now_ms);

/// The scorecard of the drills run against the job (drill_scorecard.h), from the journals of
/// `log_dir` this host can read. Throws LogFolderError when `log_dir` or a journal cannot be
/// read, or holds no journal.
std::vector<FaultScore> read_drill_scores(const std::string& log_dir);

}  // namespace pai::launcher::report
