#include "launcher/report/report_html.h"

#include "launcher/report/drill_html.h"
#include "launcher/report/goodput_html.h"
#include "launcher/report/html_text.h"
#include "launcher/report/timeline_svg.h"
#include "libpai/duration.h"

namespace pai::launcher::report {

namespace {

// The whole style sheet; the SVG charts use its classes.
constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2328;margin:0;background:#f6f8fa}
main{max-width:1340px;margin:0 auto;padding:12px 20px 40px}
h1{font-size:20px;margin:6px 0 4px}
h2{font-size:16px;margin:22px 0 8px}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:13px;color:#fff;vertical-align:2px;margin-left:8px}
.badge.o-succeeded{background:#1f883d}.badge.o-failed{background:#cf222e}.badge.o-cancelled{background:#6e7781}.badge.o-unfinished{background:#bf8700}
.headline{font-size:15px;margin:4px 0;font-weight:600;overflow-wrap:anywhere}
.meta{color:#57606a;margin:2px 0}
.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;overflow-x:auto}
svg{display:block}
svg text{font:11px system-ui,"DejaVu Sans",sans-serif;fill:#57606a}
.plot{fill:#fff}.stripe{fill:#f3f5f8}
.ticks line{stroke:#e4e8ec;stroke-width:1}
text.lane{font:12px ui-monospace,"DejaVu Sans Mono",monospace;fill:#1f2328}
.attempt text{fill:#fff;font-size:11px}
.a-succeeded rect,rect.a-succeeded{fill:#2da44e}
.a-failed rect,rect.a-failed{fill:#e5484d}
.a-hung rect,rect.a-hung{fill:#e3a008}
.a-stopped rect,rect.a-stopped{fill:#99a3ad}
.a-cancelled rect,rect.a-cancelled{fill:#6e7781}
.a-running rect,rect.a-running{fill:#3b82f6}
.a-unknown rect,rect.a-unknown{fill:#c5ccd4}
.k-check rect{fill:#2da44e;stroke:#fff;stroke-width:1}
.k-checkfail rect{fill:#cf222e;stroke:#fff;stroke-width:1}
.k-failure path{stroke:#b3141c;stroke-width:2.6;fill:none}
.k-restart path{fill:#1d4ed8;stroke:#1d4ed8;stroke-width:2}
.k-hang path{fill:#f59e0b;stroke:#8a4b00;stroke-width:1}
.k-diagnosis path{fill:#8b5cf6;stroke:#4c1d95;stroke-width:1}
.k-forensics circle{fill:#fff;stroke:#7c4a1e;stroke-width:2}
.k-node rect{fill:#24292f}
.k-notify circle{fill:#0ea5e9}
.k-checkpoint rect{fill:#0f766e}
.k-signal path{stroke:#57606a;stroke-width:1.5;stroke-dasharray:3 2}
.job-mark line{stroke:#57606a;stroke-width:1.2;stroke-dasharray:5 3}
.job-end line{stroke-width:2.5}
.job-end.o-succeeded line{stroke:#2da44e}.job-end.o-failed line{stroke:#cf222e}.job-end.o-cancelled line{stroke:#6e7781}
.rate{fill:none;stroke:#2563eb;stroke-width:2}
.rate-dot{fill:#2563eb}
.yaxis line{stroke:#eef1f4}
.note{fill:#9a6700}
.empty{fill:#57606a;font-size:13px}
ul.details{margin:6px 0;padding-left:20px}
ul.details li{overflow-wrap:anywhere}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px;overflow-x:auto;font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace;white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:left;vertical-align:top;font-size:13px}
td.t{white-space:nowrap;font-family:ui-monospace,"DejaVu Sans Mono",monospace;color:#57606a}
td.x{overflow-wrap:anywhere}
.quiet{color:#57606a}
table.waterfall td.wf,table.waterfall th.wf{width:55%}
.wf-bar{height:12px;min-width:1px;background:#99a3ad;border-radius:2px}
.wf-bar.g-productive{background:#2da44e}.wf-bar.g-unknown{background:#c5ccd4}
.wf-bar.g-hang-detection-wait,.wf-bar.g-rollback{background:#e3a008}
.wf-bar.g-restart-backoff,.wf-bar.g-stop-and-teardown{background:#e5484d}
.wf-bar.g-checkpoint-stall{background:#0f766e}.wf-bar.g-idle-spare{background:#6e7781}
.wf-bar.g-running-no-step-data{background:#3b82f6}
)";

std::string stat(const char* label, std::int64_t value) {
  return "<span class=\"stat\">" + std::string(label) + " <b>" + std::to_string(value) +
         "</b></span> ";
}

std::string header(const JobHistory& h) {
  const RootCause& rc = h.root_cause;
  const std::string outcome = to_string(rc.outcome);
  std::string out = "<header><h1>Job " + html_text(h.job.empty() ? "(unnamed)" : h.job) +
                    "<span class=\"badge o-" + outcome + "\">" + outcome +
                    (rc.exit_code >= 0 ? ", exit code " + std::to_string(rc.exit_code) : "") +
                    "</span></h1>";
  out += "<p class=\"headline\" id=\"headline\">" + html_text(rc.headline) + "</p>";
  out += "<p class=\"meta\">" + html_text(h.log_dir) + " &middot; " + utc_text(h.first_ms) +
         " to " + utc_text(h.last_ms) + " (" + human_duration(h.last_ms - h.first_ms) +
         ")</p><p class=\"meta\">";
  out += stat("nodes", static_cast<std::int64_t>(h.lanes.size()) + h.lanes_left_out);
  out += stat("attempts", h.attempts);
  out += stat("restarts", h.job_restarts);
  out += stat("instance restarts", h.restarts);
  out += stat("failures", h.failures);
  out += stat("hangs", h.hangs);
  out += stat("diagnosis verdicts", h.verdicts);
  return out + "</p></header>";
}

std::string root_cause(const JobHistory& h) {
  const RootCause& rc = h.root_cause;
  std::string out = "<section id=\"root-cause\"><h2>Root cause</h2><div class=\"card\">";
  out += "<p class=\"headline\">" + html_text(rc.headline) + "</p>";
  if (!rc.details.empty()) {
    out += "<ul class=\"details\">";
    for (const std::string& d : rc.details) out += "<li>" + html_text(d) + "</li>";
    out += "</ul>";
  }
  if (!rc.summary.empty()) out += "<pre>" + html_lines(rc.summary) + "</pre>";
  return out + "</div></section>";
}

std::string key_events(const JobHistory& h) {
  std::string out = "<section id=\"events\"><h2>Events</h2>";
  if (h.key_events.empty()) {
    return out +
           "<p class=\"quiet\">No failure, restart, hang, verdict or node change.</p></section>";
  }
  if (h.key_events_left_out > 0) {
    out += "<p class=\"quiet\">The latest " + std::to_string(h.key_events.size()) + "; " +
           std::to_string(h.key_events_left_out) + " earlier ones are in the journals.</p>";
  }
  out +=
      "<div class=\"card\"><table><tr><th>time (UTC)</th><th>where</th><th>event</th>"
      "<th>what the journal says</th></tr>";
  for (const KeyEvent& e : h.key_events) {
    out += "<tr><td class=\"t\">" + utc_text(e.unix_ms, true) + "</td><td>" + html_text(e.where) +
           "</td><td>" + html_text(e.what) + "</td><td class=\"x\">" + html_text(e.text) +
           "</td></tr>";
  }
  return out + "</table></div></section>";
}

std::string journals(const JobHistory& h) {
  std::string out =
      "<section id=\"journals\"><h2>Journals</h2><div class=\"card\"><table><tr><th>journal</th>"
      "<th>bytes</th><th>records</th><th>not read</th></tr>";
  for (const JournalInfo& j : h.journals) {
    std::string problems;
    auto add = [&](const std::string& text) { problems += (problems.empty() ? "" : "; ") + text; };
    if (j.stats.malformed > 0) add(std::to_string(j.stats.malformed) + " malformed lines");
    if (j.stats.unknown > 0) {
      add(std::to_string(j.stats.unknown) + " records of events this version does not know");
    }
    if (j.stats.mistyped > 0) {
      add(std::to_string(j.stats.mistyped) + " fields of the wrong type, read as defaults");
    }
    if (j.stats.oversized > 0) add(std::to_string(j.stats.oversized) + " lines over 1 MiB");
    if (j.stats.partial_last_line) {
      add("a partial last line (written while the job ran, or cut off by a kill)");
    }
    out += "<tr><td class=\"x\">" + html_text(j.path) + "</td><td>" +
           std::to_string(j.stats.bytes) + "</td><td>" + std::to_string(j.stats.records) +
           "</td><td class=\"x\">" + (problems.empty() ? "-" : problems) + "</td></tr>";
  }
  return out + "</table></div></section>";
}

}  // namespace

std::string render_report_html(const JobHistory& h) {
  const TimeAxis axis = time_axis(h);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"generator\" content=\"pai-launch report\">"
      "<title>pai job report: " +
      html_text(h.job) + " (" + to_string(h.root_cause.outcome) + ")</title><style>" + kStyle +
      "</style></head>\n<body><main>\n";
  out += header(h) + "\n";
  out += "<section id=\"timeline\"><h2>Timeline</h2><div class=\"card\">" + timeline_svg(h, axis) +
         "</div></section>\n";
  out += "<section id=\"step-rate\"><h2>Step rate</h2>";
  const std::string rate = step_rate_svg(h, axis);
  if (rate.empty()) {
    out +=
        "<p class=\"quiet\">No record in the journals carries a step (checkpoints and step "
        "records do).</p>";
  } else {
    out += "<div class=\"card\">" + rate + "</div><p class=\"quiet\">" +
           std::to_string(h.step_samples) + " step records in " +
           std::to_string(h.step_rate.size()) + " buckets of " +
           human_duration(h.step_rate.front().width_ms) + ".</p>";
  }
  out += "</section>\n";
  out += root_cause(h) + "\n" + goodput_html(h.goodput) + "\n";
  if (!h.drill.empty()) out += drill_html(h.drill) + "\n";
  out += key_events(h) + "\n" + journals(h) + "\n";
  return out + "</main></body></html>\n";
}

}  // namespace pai::launcher::report
