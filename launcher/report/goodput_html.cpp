#include "launcher/report/goodput_html.h"

#include <cstdio>

#include "launcher/report/html_text.h"

namespace pai::launcher::report {

std::string fixed_text(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string goodput_html(const goodput::Account& a) {
  std::string out = "<section id=\"goodput\"><h2>Goodput</h2>";
  const double all = a.causes.total();
  if (all <= 0) {
    return out + "<p class=\"quiet\">No rank-second to account for.</p></section>";
  }
  out += "<p class=\"meta\">ETTR <b>" + fixed_text(100.0 * a.ettr(), 1) + "%</b> of " +
         std::to_string(a.rank_slots) + " rank slots &times; " + fixed_text(a.wall_seconds(), 1) +
         " s (docs/goodput.md defines each cause)</p>";
  out +=
      "<div class=\"card\"><table class=\"waterfall\"><tr><th>cause</th><th>rank-seconds</th>"
      "<th>share</th><th class=\"wf\"></th></tr>";
  double before = 0;
  for (int c = 0; c < goodput::kCauses; ++c) {
    const double s = a.causes.seconds[c];
    const std::string name = goodput::to_string(static_cast<goodput::Cause>(c));
    const double left = 100.0 * before / all;
    const double width = 100.0 * s / all;
    out += "<tr><td>" + html_text(name) + "</td><td class=\"t\">" + fixed_text(s, 1) +
           "</td><td class=\"t\">" + fixed_text(width, 1) +
           "%</td><td class=\"wf\"><div class=\"wf-bar g-" + html_text(name) +
           "\" style=\"margin-left:" + fixed_text(left, 3) + "%;width:" + fixed_text(width, 3) +
           "%\"></div></td></tr>";
    before += s;
  }
  out += "</table></div>";
  if (!a.notes.empty()) {
    out += "<ul class=\"details\">";
    for (const std::string& note : a.notes) out += "<li>" + html_text(note) + "</li>";
    out += "</ul>";
  }
  return out + "</section>";
}

}  // namespace pai::launcher::report
