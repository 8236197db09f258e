// `pai-launch report LOGDIR [-o FILE]`: the job report (launcher/report/) of a log folder, for
// a job that ended, one still running, or one whose launchers were killed.
#pragma once

#include <functional>
#include <string>

namespace pai::launcher {

/// What `pai-launch report` asks for.
struct ReportOptions {
  std::string log_dir;  ///< the job's log folder (or one instance's folder in it)
  std::string output;   ///< -o; empty = <log_dir>/report.html; "-" = standard output
};

/// Writes the report of `options.log_dir`. Returns 0 when written (its path said on stderr);
/// 2 when the folder holds no journal or only empty ones, or cannot be read (the message names
/// the folder or file); 1 when the report cannot be written.
int report_command(const ReportOptions& options);

/// Runs `body`, a command that reads a log folder (`report`, `goodput`): 0 when it returns; 2
/// when it throws report::LogFolderError, 1 when it throws std::system_error, with the error
/// said on stderr.
int log_folder_command(const std::function<void()>& body);

}  // namespace pai::launcher
