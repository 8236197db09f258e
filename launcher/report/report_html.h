// The job report: one self-contained HTML page (inline CSS and SVG, no script, nothing fetched)
// drawn from a JobHistory — the outcome and its root cause, the timeline of every node, the
// step rate, the notable events and the journals it was read from.
#pragma once

#include <string>

#include "launcher/report/job_history.h"

namespace pai::launcher::report {

/// The page for `history`. Every text from the journals is escaped (html_text.h).
std::string render_report_html(const JobHistory& history);

}  // namespace pai::launcher::report
