#include "launcher/report/drill_html.h"

#include "launcher/logs/journal.h"
#include "launcher/report/goodput_html.h"
#include "launcher/report/html_text.h"

namespace pai::launcher::report {

namespace {

std::string seconds_cell(const std::optional<std::int64_t>& ms) {
  return ms ? fixed_text(static_cast<double>(*ms) / 1000.0, 2) + " s" : "-";
}

}  // namespace

std::string drill_html(const std::vector<FaultScore>& scores) {
  if (scores.empty()) return "";
  std::string out =
      "<section id=\"drill\"><h2>Drill</h2><div class=\"card\"><table><tr><th>injected</th>"
      "<th>fault</th><th>target</th><th>detected after</th><th>verdict</th><th>named "
      "right</th><th>recovered after</th><th>steps lost</th></tr>";
  for (const FaultScore& s : scores) {
    const DrillInjection& t = s.injection;
    const std::string target =
        on_node(t.fault) ? t.instance + " on " + t.node
                         : t.instance + " rank " + std::to_string(t.rank) + " on " + t.node;
    const std::string verdict = verdict_text(s);
    out += "<tr><td>" + journal::format_time(t.at_ms) + "</td><td>" + to_string(t.fault) +
           "</td><td class=\"x\">" + html_text(target) + "</td><td>" + seconds_cell(s.detect_ms) +
           "</td><td class=\"x\">" + html_text(verdict) + "</td><td>" +
           (s.detect_ms ? (s.named_right ? "yes" : "no") : "-") + "</td><td>" +
           seconds_cell(s.recover_ms) + "</td><td>" +
           (s.lost_steps ? std::to_string(*s.lost_steps) : "-") + "</td></tr>";
  }
  return out +
         "</table></div><p class=\"quiet\">Times are from each fault's <code>fault-injected</code> "
         "record in the coordinator's journal: to the job's first verdict after it, and to the "
         "instance's first step after its restart.</p></section>";
}

}  // namespace pai::launcher::report
