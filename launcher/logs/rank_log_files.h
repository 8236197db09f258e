// The ranks' log files in a job's log folder, by the names the supervisor gives them
// (docs/launch.md, "Logs and the journal"): `<log-dir>/<role>-<i>/rank-<r>.attempt-<k>.log`.
// `pai-launch logs` reads them from there once the job (and its coordinator) is gone.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pai::launcher {

/// "rank-<rank>.attempt-<attempt>" + `suffix` (".log", ".error.json").
std::string rank_log_name(int rank, int attempt, const std::string& suffix = ".log");

/// A log folder whose rank logs cannot be listed; what() names the folder and why.
class RankLogFilesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RankLogFile {
  std::string instance;  ///< "worker-0": the folder it is in
  int rank = 0;          ///< global
  int attempt = 0;
  std::string path;
};

/// The log of the newest attempt of every rank under `log_dir`, in rank order. Folders and
/// files that do not follow the names (forensics/, report.html, a log's rotated `.1` part)
/// are skipped. Throws RankLogFilesError when `log_dir` cannot be read.
std::vector<RankLogFile> latest_rank_logs(const std::string& log_dir);

}  // namespace pai::launcher
