// Writing the job report to a file: atomically (a temporary file beside it, then rename), so
// a reader never sees half a report; and once a job ends, next to its logs, where a failure
// is only a warning.
#pragma once

#include <cstdint>
#include <string>

namespace pai::launcher::report {

/// The report's file name in the log folder.
constexpr const char* kReportFile = "report.html";

/// Reads `log_dir` (log_folder.h) and writes its report to `out_path` through
/// `<out_path>.tmp-<pid>` and rename(2). Throws LogFolderError when the folder holds nothing
/// to report, std::system_error naming the file when it cannot be written (the temporary
/// file is removed then).
void write_report(const std::string& log_dir, const std::string& out_path);

/// Journals bigger than this in all are not reported at a job's end: reading them (about
/// 30 MB/s) would hold the launcher's exit that long. `pai-launch report` still does.
constexpr std::uintmax_t kAutomaticReportMaxBytes = std::uintmax_t{256} << 20;

/// What a job's end calls: write_report(log_dir, log_dir + "/report.html") and a line
/// saying where on `warn_fd` ("pai-launch: report: PATH"); on any failure one warning there
/// instead ("pai-launch: warning: cannot write the job report PATH: WHY; ...") and false; when
/// the journals hold more than `max_bytes`, a line saying how to write it and false. Never
/// throws: the job's exit status and logs do not depend on it.
bool write_report_beside_logs(const std::string& log_dir, int warn_fd = 2,
                              std::uintmax_t max_bytes = kAutomaticReportMaxBytes) noexcept;

}  // namespace pai::launcher::report
