#include "launcher/report/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "launcher/report/html_text.h"
#include "libpai/duration.h"

namespace pai::launcher::report {

namespace {

constexpr double kWidth = 1300;
constexpr double kAxisHeight = 34;  // tick labels above the lanes
constexpr double kLaneHeight = 24;
constexpr double kLegendHeight = 64;  // a note, then two rows of legend
constexpr std::size_t kLabelChars = 24;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

// A label cut to `max` characters (UTF-8 aware enough: never inside a sequence).
std::string short_label(const std::string& text, std::size_t max = kLabelChars) {
  std::size_t chars = 0, i = 0;
  while (i < text.size()) {
    if (chars == max) return text.substr(0, i) + "\xE2\x80\xA6";  // …
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
    ++chars;
  }
  return text;
}

const char* kind_class(MarkKind kind) {
  switch (kind) {
    case MarkKind::CheckPassed:
      return "k-check";
    case MarkKind::CheckFailed:
      return "k-checkfail";
    case MarkKind::Failure:
      return "k-failure";
    case MarkKind::Restart:
      return "k-restart";
    case MarkKind::Hang:
      return "k-hang";
    case MarkKind::Diagnosis:
      return "k-diagnosis";
    case MarkKind::Forensics:
      return "k-forensics";
    case MarkKind::NodeChange:
      return "k-node";
    case MarkKind::Notify:
      return "k-notify";
    case MarkKind::Checkpoint:
      return "k-checkpoint";
    case MarkKind::Signal:
      return "k-signal";
  }
  return "k-notify";
}

// The shape of a mark of `kind` centred on (x, y) in a lane of kLaneHeight.
std::string shape(MarkKind kind, double x, double y) {
  const std::string X = num(x);
  auto at = [](double v) { return num(v); };
  switch (kind) {
    case MarkKind::CheckPassed:
      return "<rect x=\"" + at(x - 3) + "\" y=\"" + at(y + 4) + "\" width=\"6\" height=\"6\"/>";
    case MarkKind::CheckFailed:
      return "<rect x=\"" + at(x - 4) + "\" y=\"" + at(y + 2) + "\" width=\"8\" height=\"8\"/>";
    case MarkKind::Failure:
      return "<path d=\"M" + at(x - 5) + " " + at(y - 5) + "L" + at(x + 5) + " " + at(y + 5) + "M" +
             at(x - 5) + " " + at(y + 5) + "L" + at(x + 5) + " " + at(y - 5) + "\"/>";
    case MarkKind::Restart:
      return "<path d=\"M" + X + " " + at(y - 11) + "V" + at(y + 11) + "M" + at(x - 5) + " " +
             at(y - 11) + "H" + at(x + 5) + "L" + X + " " + at(y - 5) + "Z\"/>";
    case MarkKind::Hang:
      return "<path d=\"M" + X + " " + at(y - 7) + "L" + at(x + 7) + " " + at(y) + "L" + X + " " +
             at(y + 7) + "L" + at(x - 7) + " " + at(y) + "Z\"/>";
    case MarkKind::Diagnosis:
      return "<path d=\"M" + at(x - 6) + " " + at(y - 8) + "H" + at(x + 6) + "L" + X + " " +
             at(y + 3) + "Z\"/>";
    case MarkKind::Forensics:
      return "<circle cx=\"" + X + "\" cy=\"" + at(y) + "\" r=\"5\"/>";
    case MarkKind::NodeChange:
      return "<rect x=\"" + at(x - 5) + "\" y=\"" + at(y - 5) + "\" width=\"10\" height=\"10\"/>";
    case MarkKind::Notify:
      return "<circle cx=\"" + X + "\" cy=\"" + at(y - 6) + "\" r=\"3\"/>";
    case MarkKind::Checkpoint:
      return "<rect x=\"" + at(x - 1.5) + "\" y=\"" + at(y - 9) + "\" width=\"3\" height=\"8\"/>";
    case MarkKind::Signal:
      return "<path d=\"M" + X + " " + at(y - 11) + "V" + at(y + 11) + "\"/>";
  }
  return "";
}

const char* end_class(AttemptEnd end) {
  switch (end) {
    case AttemptEnd::Running:
      return "a-running";
    case AttemptEnd::Succeeded:
      return "a-succeeded";
    case AttemptEnd::Failed:
      return "a-failed";
    case AttemptEnd::Hung:
      return "a-hung";
    case AttemptEnd::Stopped:
      return "a-stopped";
    case AttemptEnd::Cancelled:
      return "a-cancelled";
    case AttemptEnd::Unknown:
      return "a-unknown";
  }
  return "a-unknown";
}

// A tick interval giving at most about 10 ticks over `span_ms`.
std::int64_t tick_step(std::int64_t span_ms) {
  static const std::int64_t steps[] = {100,      200,      500,      1000,      2000,     5000,
                                       10000,    15000,    30000,    60000,     120000,   300000,
                                       600000,   900000,   1800000,  3600000,   7200000,  10800000,
                                       21600000, 43200000, 86400000, 172800000, 604800000};
  for (std::int64_t s : steps) {
    if (span_ms / s <= 10) return s;
  }
  return ((span_ms / 10) / 604800000 + 1) * 604800000;
}

std::string tick_label(std::int64_t ms) {
  if (ms == 0) return "0";
  if (ms < 1000) return std::to_string(ms) + "ms";
  const std::int64_t s = ms / 1000;
  if (s < 60)
    return std::to_string(s) + (ms % 1000 ? "." + std::to_string(ms % 1000 / 100) : "") + "s";
  if (s < 3600) return std::to_string(s / 60) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (s < 86400)
    return std::to_string(s / 3600) + "h" + (s % 3600 ? std::to_string(s % 3600 / 60) + "m" : "");
  return std::to_string(s / 86400) + "d" +
         (s % 86400 ? std::to_string(s % 86400 / 3600) + "h" : "");
}

// Tick lines and labels (elapsed time since the axis' start) from y_top to y_bottom.
std::string ticks(const TimeAxis& axis, double y_label, double y_top, double y_bottom) {
  std::string out = "<g class=\"ticks\">";
  const std::int64_t span = axis.end_ms - axis.start_ms;
  const std::int64_t step = tick_step(span);
  for (std::int64_t t = 0; t <= span; t += step) {
    const double x = axis.x(axis.start_ms + t);
    out += "<line x1=\"" + num(x) + "\" y1=\"" + num(y_top) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(y_bottom) + "\"/><text x=\"" + num(x) + "\" y=\"" + num(y_label) +
           "\" text-anchor=\"middle\">+" + tick_label(t) + "</text>";
  }
  return out + "</g>";
}

std::string legend(double y) {
  // Attempts' colours, then the marks' shapes, wrapped to the width.
  std::string out = "<g class=\"legend\">";
  double x = 10;
  auto wrap = [&](double need) {
    if (x + need > kWidth - 10) {
      x = 10;
      y += 18;
    }
  };
  auto swatch = [&](const char* cls, const char* label) {
    wrap(30 + 6.5 * static_cast<double>(std::string(label).size()));
    out += "<rect class=\"" + std::string(cls) + "\" x=\"" + num(x) + "\" y=\"" + num(y - 9) +
           "\" width=\"18\" height=\"10\" rx=\"2\"/><text x=\"" + num(x + 22) + "\" y=\"" + num(y) +
           "\">" + label + "</text>";
    x += 30 + 6.5 * static_cast<double>(std::string(label).size());
  };
  swatch("a-succeeded", "succeeded");
  swatch("a-failed", "failed");
  swatch("a-hung", "hung");
  swatch("a-stopped", "stopped");
  swatch("a-running", "running");
  for (int k = 0; k < kMarkKinds; ++k) {
    const auto kind = static_cast<MarkKind>(k);
    wrap(26 + 6.5 * static_cast<double>(std::string(to_string(kind)).size()));
    out += "<g class=\"" + std::string(kind_class(kind)) + "\">" + shape(kind, x + 6, y - 4) +
           "</g><text x=\"" + num(x + 16) + "\" y=\"" + num(y) + "\">" + to_string(kind) +
           "</text>";
    x += 26 + 6.5 * static_cast<double>(std::string(to_string(kind)).size());
  }
  return out + "</g>";
}

}  // namespace

double TimeAxis::x(std::int64_t unix_ms) const {
  const double span = static_cast<double>(std::max<std::int64_t>(end_ms - start_ms, 1));
  const double f = static_cast<double>(unix_ms - start_ms) / span;
  return x0 + std::clamp(f, 0.0, 1.0) * (x1 - x0);
}

TimeAxis time_axis(const JobHistory& h) {
  std::int64_t lo = h.first_ms, hi = h.last_ms;
  auto cover = [&](std::int64_t t) {
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  };
  for (const NodeLane& lane : h.lanes) {
    for (const Attempt& a : lane.attempts) {
      cover(a.start_ms);
      cover(a.end_ms);
    }
    for (const Mark& m : lane.marks) cover(m.unix_ms);
  }
  for (const Mark& m : h.job_marks) cover(m.unix_ms);
  TimeAxis axis;
  axis.start_ms = lo;
  // A little room after the last record, so its marks are not on the edge.
  const std::int64_t span = std::max<std::int64_t>(hi - lo, 1000);
  axis.end_ms = lo + span + span / 50;
  return axis;
}

std::string utc_text(std::int64_t unix_ms, bool millis) {
  const std::time_t seconds =
      static_cast<std::time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[64];
  if (millis) {
    std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(((unix_ms % 1000) + 1000) % 1000));
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  return buf;
}

std::string timeline_svg(const JobHistory& h, const TimeAxis& axis) {
  const std::size_t lanes = std::max<std::size_t>(h.lanes.size(), 1);
  const double lanes_bottom = kAxisHeight + kLaneHeight * static_cast<double>(lanes);
  const double height = lanes_bottom + kLegendHeight;
  std::string out = "<svg id=\"timeline-svg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(kWidth) +
                    " " + num(height) + "\" role=\"img\" aria-label=\"timeline\">";
  out += "<rect class=\"plot\" x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" +
         num(lanes_bottom + 4) + "\"/>";
  for (std::size_t i = 0; i < h.lanes.size(); ++i) {
    if (i % 2 == 1) {
      out += "<rect class=\"stripe\" x=\"0\" y=\"" +
             num(kAxisHeight + kLaneHeight * static_cast<double>(i)) + "\" width=\"" + num(kWidth) +
             "\" height=\"" + num(kLaneHeight) + "\"/>";
    }
  }
  out += ticks(axis, 14, 20, lanes_bottom);
  out += "<text class=\"start\" x=\"10\" y=\"14\">" + utc_text(axis.start_ms) + "</text>";

  // Job-wide marks: lines across every lane.
  for (const Mark& m : h.job_marks) {
    const double x = axis.x(m.unix_ms);
    out += "<g class=\"job-mark\"><title>" + utc_text(m.unix_ms, true) + " " + html_text(m.text) +
           "</title><line x1=\"" + num(x) + "\" y1=\"20\" x2=\"" + num(x) + "\" y2=\"" +
           num(lanes_bottom) + "\"/></g>";
  }
  if (h.root_cause.outcome != JobOutcome::Unfinished) {
    const double x = axis.x(h.last_ms);
    out += "<g class=\"job-end o-" + std::string(to_string(h.root_cause.outcome)) +
           "\"><title>job " + to_string(h.root_cause.outcome) + ": " +
           html_text(h.root_cause.headline) + "</title><line x1=\"" + num(x) +
           "\" y1=\"20\" x2=\"" + num(x) + "\" y2=\"" + num(lanes_bottom) + "\"/></g>";
  }

  std::int64_t drawn = 0, not_drawn = 0;
  const double slot_px = 4.0 * std::ceil(static_cast<double>(h.lanes.size()) / 64.0);
  for (std::size_t i = 0; i < h.lanes.size(); ++i) {
    const NodeLane& lane = h.lanes[i];
    const double top = kAxisHeight + kLaneHeight * static_cast<double>(i);
    const double mid = top + kLaneHeight / 2;
    out += "<text class=\"lane\" x=\"10\" y=\"" + num(mid + 4) + "\"><title>" +
           html_text(lane.node) + "</title>" + html_text(short_label(lane.node)) + "</text>";
    for (const Attempt& a : lane.attempts) {
      const double x = axis.x(a.start_ms);
      const double w = std::max(axis.x(a.end_ms) - x, 2.0);
      const std::string label = a.instance + " #" + std::to_string(a.number) +
                                (a.count > 1 ? "-" + std::to_string(a.number + a.count - 1) : "");
      out += "<g class=\"attempt " + std::string(end_class(a.end)) + "\"><title>" +
             html_text(label) + " on " + html_text(lane.node) + ": " + utc_text(a.start_ms, true) +
             " to " + utc_text(a.end_ms, true) + " (" + human_duration(a.end_ms - a.start_ms) +
             "), " + (a.count > 1 ? std::to_string(a.count) + " attempts, the worst " : "") +
             to_string(a.end) + "</title><rect x=\"" + num(x) + "\" y=\"" + num(top + 5) +
             "\" width=\"" + num(w) + "\" height=\"14\" rx=\"3\"/>";
      if (w > 7.0 * static_cast<double>(label.size()) + 8) {
        out += "<text x=\"" + num(x + 4) + "\" y=\"" + num(mid + 4) + "\">" + html_text(label) +
               "</text>";
      }
      out += "</g>";
    }
    // Marks of one kind within a slot of a few pixels are drawn once, with their count.
    struct Drawn {
      const Mark* first;
      std::int64_t count;
    };
    std::vector<Drawn> merged;
    std::map<int, std::pair<std::int64_t, std::size_t>> slot_of_kind;
    for (const Mark& m : lane.marks) {
      const auto slot = static_cast<std::int64_t>(axis.x(m.unix_ms) / slot_px);
      auto it = slot_of_kind.find(static_cast<int>(m.kind));
      if (it != slot_of_kind.end() && it->second.first == slot) {
        merged[it->second.second].count += m.count;
        continue;
      }
      slot_of_kind[static_cast<int>(m.kind)] = {slot, merged.size()};
      merged.push_back(Drawn{&m, m.count});
    }
    for (const Drawn& d : merged) {
      if (drawn >= kMaxDrawnMarks) {
        not_drawn += d.count;
        continue;
      }
      ++drawn;
      const Mark& m = *d.first;
      out += "<g class=\"mark " + std::string(kind_class(m.kind)) + "\"><title>" +
             utc_text(m.unix_ms, true) + " " + html_text(lane.node) + ": " + to_string(m.kind) +
             ": " + html_text(m.text) +
             (d.count > 1 ? " (and " + std::to_string(d.count - 1) + " more near it)" : "") +
             "</title>" + shape(m.kind, axis.x(m.unix_ms), mid) + "</g>";
    }
  }
  if (h.lanes.empty()) {
    out += "<text class=\"empty\" x=\"" + num(axis.x0) + "\" y=\"" + num(kAxisHeight + 16) +
           "\">no attempt or mark in the journals</text>";
  }
  double y = lanes_bottom + 16;
  if (not_drawn > 0 || h.lanes_left_out > 0) {
    std::string note;
    if (h.lanes_left_out > 0) note += std::to_string(h.lanes_left_out) + " more nodes not drawn. ";
    if (not_drawn > 0) note += std::to_string(not_drawn) + " more marks not drawn.";
    out += "<text class=\"note\" x=\"10\" y=\"" + num(y) + "\">" + note + "</text>";
  }
  out += legend(y + 18);
  return out + "</svg>";
}

std::string step_rate_svg(const JobHistory& h, const TimeAxis& axis) {
  double max_rate = 0;
  for (const StepRateBucket& b : h.step_rate) {
    if (b.rates > 0) max_rate = std::max(max_rate, b.steps_per_second);
  }
  if (h.step_rate.empty()) return "";
  const double top = 20, bottom = 170, height = 200;
  const double scale = max_rate > 0 ? max_rate * 1.1 : 1;
  auto y = [&](double rate) { return bottom - (rate / scale) * (bottom - top); };
  std::string out = "<svg id=\"step-rate-svg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(kWidth) +
                    " " + num(height) + "\" role=\"img\" aria-label=\"step rate\">";
  out += "<rect class=\"plot\" x=\"0\" y=\"0\" width=\"" + num(kWidth) + "\" height=\"" +
         num(height) + "\"/>";
  out += ticks(axis, bottom + 18, top, bottom);
  for (int k = 0; k <= 2; ++k) {
    const double rate = scale / 1.1 * k / 2;
    char label[32];
    std::snprintf(label, sizeof label, "%.3g/s", rate);
    out += "<g class=\"yaxis\"><line x1=\"" + num(axis.x0) + "\" y1=\"" + num(y(rate)) +
           "\" x2=\"" + num(axis.x1) + "\" y2=\"" + num(y(rate)) + "\"/><text x=\"" +
           num(axis.x0 - 6) + "\" y=\"" + num(y(rate) + 4) + "\" text-anchor=\"end\">" + label +
           "</text></g>";
  }
  std::string points;
  for (const StepRateBucket& b : h.step_rate) {
    if (b.rates == 0) continue;
    points += num(axis.x(b.start_ms + b.width_ms / 2)) + "," + num(y(b.steps_per_second)) + " ";
  }
  if (!points.empty()) {
    points.pop_back();
    out += "<polyline class=\"rate\" points=\"" + points + "\"/>";
  }
  // A dot per bucket while they are few enough to tell apart.
  if (h.step_rate.size() <= 200) {
    for (const StepRateBucket& b : h.step_rate) {
      if (b.rates == 0) continue;  // a first sample: no rate to show yet
      const double x = axis.x(b.start_ms + b.width_ms / 2);
      char rate[32];
      std::snprintf(rate, sizeof rate, "%.3g", b.steps_per_second);
      out += "<circle class=\"rate-dot\" cx=\"" + num(x) + "\" cy=\"" + num(y(b.steps_per_second)) +
             "\" r=\"2.5\"><title>" + utc_text(b.start_ms, true) + ": step " +
             std::to_string(b.last_step) + ", " + rate + " steps/s</title></circle>";
    }
  }
  out += "<text class=\"start\" x=\"10\" y=\"14\">steps per second</text>";
  return out + "</svg>";
}

}  // namespace pai::launcher::report
