#include "launcher/supervisor/failure_summary.h"

#include "libpai/rank_name.h"
#include "libpai/terminal_text.h"

namespace pai::launcher {
namespace {

// Each line of `text` behind `prefix` and "  | ".
std::string quoted_lines(const std::string& prefix, const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out += prefix + "  | " + terminal_safe(text.substr(start, nl - start)) + "\n";
    start = nl + 1;
  }
  return out;
}

// The last `count` lines of `text`, without its final newline.
std::string last_lines(std::string text, int count) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::size_t start = text.size();
  for (int seen = 0; seen < count; ++seen) {
    const std::size_t nl = start == 0 ? std::string::npos : text.rfind('\n', start - 1);
    if (nl == std::string::npos) return text;
    start = nl;
  }
  return text.substr(start + 1);
}

}  // namespace

// Rank output, and patterns from the spec, reach a terminal here: terminal_safe() each piece.
std::string format_failure_summary(const FailureReport& r) {
  const std::string p = "pai-launch: ";
  std::string out = p + "job '" + r.job + "' failed: " + terminal_safe(r.reason) + "\n";
  if (r.rank >= 0) {
    out += p + "  root cause: " +
           to_string(RankName{.rank = r.rank, .instance = r.instance, .local_rank = r.local_rank}) +
           ", " + r.status + "\n";
  } else if (!r.instance.empty()) {
    out += p + "  root cause: " + r.instance + "\n";
  }
  if (!r.error_message.empty()) {
    out += p + "  error: " + terminal_safe(r.error_message) + "\n";
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
  if (!r.error_traceback.empty()) {
    // The rank's own record of the exception says more than the end of its output.
    out += p + "  traceback from its error file:\n" +
           quoted_lines(p, last_lines(r.error_traceback, kSummaryLogLines));
  } else if (!r.log_path.empty()) {
    if (r.last_lines.empty()) {
      out += p + "  its log is empty\n";
    } else {
      out += p + "  last lines of its log:\n" + quoted_lines(p, r.last_lines);
    }
  }
  if (!r.log_path.empty()) out += p + "  full log: " + r.log_path + "\n";
  return out;
}

}  // namespace pai::launcher
