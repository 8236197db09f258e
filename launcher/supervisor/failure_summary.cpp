#include "launcher/supervisor/failure_summary.h"

#include "libpai/terminal_text.h"

namespace pai::launcher {

// Rank output, and patterns from the spec, reach a terminal here: terminal_safe() each piece.
std::string format_failure_summary(const FailureReport& r) {
  const std::string p = "pai-launch: ";
  std::string out = p + "job '" + r.job + "' failed: " + terminal_safe(r.reason) + "\n";
  if (r.rank >= 0) {
    out += p + "  root cause: rank " + std::to_string(r.rank) + " (" + r.instance + " local rank " +
           std::to_string(r.local_rank) + "), " + r.status + "\n";
  } else if (!r.instance.empty()) {
    out += p + "  root cause: " + r.instance + "\n";
  }
  if (!r.culprit.empty()) {
    out += p + "  culprit from the stacks: " + terminal_safe(r.culprit) + "\n";
  }
  if (!r.classification.reason.empty()) {
    out += p + "  classification: " + terminal_safe(r.classification.reason) + "\n";
  }
  if (!r.classification.matched_line.empty()) {
    out += p + "  matched line: " + terminal_safe(r.classification.matched_line) + "\n";
  }
  if (!r.log_path.empty()) {
    if (r.last_lines.empty()) {
      out += p + "  its log is empty\n";
    } else {
      out += p + "  last lines of its log:\n";
      std::size_t start = 0;
      while (start <= r.last_lines.size()) {
        std::size_t nl = r.last_lines.find('\n', start);
        if (nl == std::string::npos) nl = r.last_lines.size();
        out += p + "  | " + terminal_safe(r.last_lines.substr(start, nl - start)) + "\n";
        start = nl + 1;
      }
    }
    out += p + "  full log: " + r.log_path + "\n";
  }
  return out;
}

}  // namespace pai::launcher
