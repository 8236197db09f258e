// The report's two charts as inline SVG: the timeline (a row per node: its attempts as bars,
// checks, failures, restarts, hangs, verdicts, forensics and node changes as marks, job-wide
// events as lines across) and the step rate on the same time axis below it. Bounded: marks
// that would fall on the same few pixels are drawn once with their count, and at most
// kMaxDrawnMarks are drawn in all.
#pragma once

#include <cstdint>
#include <string>

#include "launcher/report/job_history.h"

namespace pai::launcher::report {

/// Marks drawn at most in one timeline; the rest are counted under it.
constexpr std::int64_t kMaxDrawnMarks = 10000;

/// Where time goes on both charts: [start_ms, end_ms] onto x in [x0, x1].
struct TimeAxis {
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 1000;
  double x0 = 170;
  double x1 = 1280;
  /// The x of `unix_ms`, clamped to the axis.
  double x(std::int64_t unix_ms) const;
};

/// The time axis covering every record, attempt, mark and step bucket of `history` (at
/// least one second).
TimeAxis time_axis(const JobHistory& history);

/// The timeline as one <svg> element (CSS classes of report_html's style sheet).
std::string timeline_svg(const JobHistory& history, const TimeAxis& axis);

/// The step rate as one <svg> element, or "" when the journals hold no step.
std::string step_rate_svg(const JobHistory& history, const TimeAxis& axis);

/// "2026-01-02 03:04:05Z" for `unix_ms`; with `millis`, "03:04:05.678".
std::string utc_text(std::int64_t unix_ms, bool millis = false);

}  // namespace pai::launcher::report
