#include "launcher/report/root_cause.h"

#include <algorithm>

namespace pai::launcher::report {

namespace {

constexpr std::size_t kMaxDetail = 600;
constexpr std::size_t kMaxSummary = 16 * 1024;
constexpr std::size_t kMaxReasonsShown = 3;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A failed job: the launcher's own words for it.
void failed(const JournalRecord& r, RootCause& rc) {
  rc.outcome = JobOutcome::Failed;
  const std::string reason = r.text("reason").value_or("");
  rc.headline = first_line(reason);
  // The coordinator writes the failure summary as a field of its own and after the reason.
  rc.summary = r.text("summary").value_or("");
  if (rc.summary.empty() && reason.find('\n') != std::string::npos) {
    rc.summary = reason.substr(reason.find('\n') + 1);
  }
  if (const auto inst = r.text("instance")) rc.details.push_back("instance: " + *inst);
  if (const auto rank = r.integer("rank"); rank && *rank >= 0) {
    rc.details.push_back("rank: " + std::to_string(*rank));
  }
  if (const RecordFields status = r.object("status"); !status.fields.empty()) {
    rc.details.push_back("exit status: " + exit_status_text(status));
  }
  const RecordFields c = r.object("classification");
  if (!c.fields.empty()) {
    rc.details.push_back("classification: " + c.text("reason").value_or(""));
    if (const auto line = c.text("matchedLine"); line && !line->empty()) {
      rc.details.push_back("matched line: " + *line);
    }
  } else if (const auto line = r.text("matchedLine"); line && !line->empty()) {
    rc.details.push_back("matched line: " + *line);
  }
  if (const auto culprit = r.text("stackCulprit"); culprit && !culprit->empty()) {
    rc.details.push_back("culprit from the stacks: " + *culprit);
  }
}

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
    const JournalRecord& r = *ev.end;
    rc.exit_code = r.integer("exitCode").value_or(r.event == "job-succeeded" ? 0 : -1);
    if (r.event == "job-succeeded") {
      rc.outcome = JobOutcome::Succeeded;
      rc.headline = "the job succeeded";
      if (ev.job_restarts > 0) {
        rc.headline += " after " + std::to_string(ev.job_restarts) + " restart" +
                       (ev.job_restarts == 1 ? "" : "s");
      }
    } else if (r.event == "job-cancelled") {
      rc.outcome = JobOutcome::Cancelled;
      const auto by = r.text("by");
      rc.headline = by ? "cancelled by " + *by : "cancelled: " + r.text("reason").value_or("");
    } else if (r.event == "finish") {
      rc.outcome = rc.exit_code == 0 ? JobOutcome::Succeeded : JobOutcome::Failed;
      rc.headline = first_line(r.text("reason").value_or(""));
    } else {
      failed(r, rc);
    }
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
