#include "launcher/commands/finished_job.h"

#include <map>

#include "launcher/logs/log_stream.h"
#include "launcher/logs/rank_log_files.h"
#include "launcher/report/log_folder.h"

namespace pai::launcher {

std::string job_end_line(const report::RootCause& root_cause) {
  if (root_cause.outcome == report::JobOutcome::Unfinished) return root_cause.headline;
  std::string line = std::string("the job ended: ") + report::to_string(root_cause.outcome);
  if (root_cause.exit_code >= 0) line += ", exit code " + std::to_string(root_cause.exit_code);
  return line + ": " + root_cause.headline;
}

std::string job_end_from_log_folder(const std::string& log_dir) {
  return job_end_line(report::read_log_folder(log_dir).root_cause);
}

int print_finished_logs(const std::string& log_dir, int rank, std::int64_t tail_bytes, int lines,
                        LogPrinter& printer) {
  std::map<int, std::string> instance_of;
  LogStream stream([&](int r, std::string_view data) {
    // Without the coordinator the node of a rank is not known here: its instance stands in.
    printer.feed(instance_of[r], instance_of[r], r, data);
  });
  stream.subscribe(rank, tail_bytes, lines);
  int printed = 0;
  for (const RankLogFile& log : latest_rank_logs(log_dir)) {
    if (rank >= 0 && log.rank != rank) continue;
    instance_of[log.rank] = log.instance;
    stream.grew(log.rank, log.path);
    ++printed;
  }
  printer.finish();
  return printed;
}

}  // namespace pai::launcher
