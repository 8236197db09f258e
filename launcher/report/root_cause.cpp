#include "launcher/report/root_cause.h"

#include <algorithm>

namespace pai::launcher::report {

namespace {

constexpr std::size_t kMaxDetail = 600;
constexpr std::size_t kMaxSummary = 16 * 1024;
constexpr std::size_t kMaxReasonsShown = 3;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The end in the journal's own words, one kind of end each.
struct EndWords {
  RootCause& rc;
  std::int64_t job_restarts;

  void operator()(const journal::JobSucceeded&) const {
    rc.outcome = JobOutcome::Succeeded;
    rc.exit_code = 0;
    rc.headline = "the job succeeded";
    if (job_restarts > 0) {
      rc.headline +=
          " after " + std::to_string(job_restarts) + " restart" + (job_restarts == 1 ? "" : "s");
    }
  }

  void operator()(const journal::JobCancelled& e) const {
    rc.outcome = JobOutcome::Cancelled;
    rc.exit_code = e.exit_code;
    rc.headline = e.by ? "cancelled by " + *e.by : "cancelled: " + e.reason.value_or("");
  }

  // A node's launcher ends with the coordinator's (or its own) exit code and reason.
  void operator()(const journal::Finish& e) const {
    rc.exit_code = e.exit_code;
    rc.outcome = e.exit_code == 0 ? JobOutcome::Succeeded : JobOutcome::Failed;
    rc.headline = first_line(e.reason);
  }

  // A failed job: the launcher's own words for it.
  void operator()(const journal::JobFailed& e) const {
    rc.outcome = JobOutcome::Failed;
    rc.exit_code = e.exit_code;
    rc.headline = first_line(e.reason);
    // The coordinator writes the failure summary as a field of its own and after the reason.
    rc.summary = e.summary.value_or("");
    if (rc.summary.empty() && e.reason.find('\n') != std::string::npos) {
      rc.summary = e.reason.substr(e.reason.find('\n') + 1);
    }
    if (e.instance) rc.details.push_back("instance: " + *e.instance);
    if (e.rank && *e.rank >= 0) rc.details.push_back("rank: " + std::to_string(*e.rank));
    if (e.status) rc.details.push_back("exit status: " + exit_status_text(*e.status));
    if (e.classification) {
      rc.details.push_back("classification: " + e.classification->reason);
      if (!e.classification->matched_line.empty()) {
        rc.details.push_back("matched line: " + e.classification->matched_line);
      }
    } else if (e.matched_line && !e.matched_line->empty()) {
      rc.details.push_back("matched line: " + *e.matched_line);
    }
    if (e.stack_culprit && !e.stack_culprit->empty()) {
      rc.details.push_back("culprit from the stacks: " + *e.stack_culprit);
    }
  }
};

}  // namespace

RootCause find_root_cause(const RootCauseEvidence& ev) {
  RootCause rc;
  if (ev.end == nullptr) {
    rc.outcome = JobOutcome::Unfinished;
    rc.headline = "the journal has no end: the job is still running, or its launcher was killed";
    if (const KeyEvent* last = ev.latest_event) {
      rc.details.push_back("latest event: " + last->what +
                           (last->where.empty() ? "" : " on " + last->where) + ": " + last->text);
    }
  } else {
    std::visit(EndWords{rc, ev.job_restarts}, *ev.end);
  }
  const bool succeeded = rc.outcome == JobOutcome::Succeeded;
  if (rc.summary.empty() && !succeeded) rc.summary = ev.failure_summary;
  for (const std::string& v : ev.verdicts) rc.details.push_back("diagnosis: " + v);
  if (!ev.stack_culprit.empty() && !succeeded) {
    rc.details.push_back("hang forensics: " + ev.stack_culprit);
  }
  auto reasons = ev.restart_reasons;
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (std::size_t i = 0; i < reasons.size() && i < kMaxReasonsShown; ++i) {
    rc.details.push_back("restarted " + std::to_string(reasons[i].second) +
                         "x: " + reasons[i].first);
  }
  for (std::string& d : rc.details) d = clip_text(std::move(d), kMaxDetail);
  rc.headline = clip_text(std::move(rc.headline), kMaxDetail);
  rc.summary = clip_text(std::move(rc.summary), kMaxSummary);
  return rc;
}

}  // namespace pai::launcher::report
