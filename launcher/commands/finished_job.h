// What `pai-launch status` and `logs` say of a job that is over, when its coordinator is gone:
// how it ended, from its journals (the report's root cause), and the ranks' logs of their
// newest attempts, from its log folder.
#pragma once

#include <cstdint>
#include <string>

#include "launcher/commands/log_printer.h"
#include "launcher/report/job_history.h"

namespace pai::launcher {

/// "the job ended: failed, exit code 1: HEADLINE" ("the journal has no end: ..." when the
/// journals do not say how it ended).
std::string job_end_line(const report::RootCause& root_cause);

/// job_end_line of the journals in `log_dir`. Throws report::LogFolderError.
std::string job_end_from_log_folder(const std::string& log_dir);

/// Prints the last `lines` lines (-1: all) within the last `tail_bytes` of the newest log of
/// every rank under `log_dir` (`rank` >= 0: that rank's only) through `printer`, as the running
/// job's launchers send them. Returns how many logs were printed; throws
/// RankLogFilesError when `log_dir` cannot be read.
int print_finished_logs(const std::string& log_dir, int rank, std::int64_t tail_bytes, int lines,
                        LogPrinter& printer);

}  // namespace pai::launcher
