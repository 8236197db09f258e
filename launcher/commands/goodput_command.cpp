#include "launcher/commands/goodput_command.h"

#include <cerrno>
#include <nlohmann/json.hpp>
#include <system_error>

#include "launcher/commands/report_command.h"
#include "launcher/report/goodput_html.h"
#include "launcher/report/log_folder.h"
#include "launcher/report/timeline_svg.h"
#include "libpai/duration.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

using report::fixed_text;

std::string percent(double part, double whole) {
  return fixed_text(whole > 0 ? 100.0 * part / whole : 0.0, 1) + "%";
}

std::string pad_left(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string pad_right(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

nlohmann::ordered_json causes_json(const goodput::CauseSeconds& causes) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (int c = 0; c < goodput::kCauses; ++c) {
    j[goodput::to_string(static_cast<goodput::Cause>(c))] = causes.seconds[c];
  }
  return j;
}

// The restart into `at` from `before`, in the causes' names (docs/goodput.md#restarts): the
// failure's teardown and the backoff are the failed attempt's, the rest the new one's.
std::string restart_text(const goodput::AttemptAccount& before, const goodput::AttemptAccount& at) {
  using goodput::Cause;
  auto part = [](const goodput::AttemptAccount& of, Cause c) {
    return std::string(goodput::to_string(c)) + " " + fixed_text(of.causes[c], 1);
  };
  std::string out = "  restart: " + part(before, Cause::StopTeardown) + " + " +
                    part(before, Cause::RestartBackoff) + " (attempt " +
                    std::to_string(before.attempt) + "), " + part(at, Cause::RendezvousChecks) +
                    " + " + part(at, Cause::StartUp) + " + " + part(at, Cause::FrameworkInit) +
                    " rank-seconds";
  if (at.warm_starts + at.cold_starts > 0) {
    out += "; ranks started warm " + std::to_string(at.warm_starts) + ", cold " +
           std::to_string(at.cold_starts);
  }
  return out + "\n";
}

}  // namespace

std::string goodput_text(const std::string& job, const goodput::Account& a) {
  const double all = a.causes.total();
  std::string out = "job " + (job.empty() ? std::string("(unnamed)") : job) + ": " +
                    std::to_string(a.rank_slots) + " rank slots, wall " +
                    human_duration(a.last_ms - a.first_ms) + ", ETTR " +
                    percent(a.causes[goodput::Cause::Productive], all) + "\n";
  out += pad_right("cause", 24) + pad_left("rank-seconds", 16) + pad_left("share", 9) + "\n";
  for (int c = 0; c < goodput::kCauses; ++c) {
    const double s = a.causes.seconds[c];
    out += pad_right(goodput::to_string(static_cast<goodput::Cause>(c)), 24) +
           pad_left(fixed_text(s, 1), 16) + pad_left(percent(s, all), 9) + "\n";
  }
  out += pad_right("total", 24) + pad_left(fixed_text(all, 1), 16) +
         pad_left(percent(all, all), 9) + "\n";
  const goodput::AttemptAccount* before = nullptr;
  for (const goodput::AttemptAccount& at : a.attempts) {
    const double total = at.causes.total();
    out += "attempt " + std::to_string(at.attempt) + ": " +
           human_duration(at.last_ms - at.first_ms) + " from " + report::utc_text(at.first_ms) +
           ", productive " + percent(at.causes[goodput::Cause::Productive], total) + "\n";
    if (before != nullptr) out += restart_text(*before, at);
    before = &at;
  }
  for (const std::string& note : a.notes) out += "note: " + note + "\n";
  return out;
}

std::string goodput_json(const std::string& job, const goodput::Account& a) {
  nlohmann::ordered_json j;
  j["job"] = job;
  j["start"] = journal::format_time(a.first_ms);
  j["end"] = journal::format_time(a.last_ms);
  j["wallSeconds"] = a.wall_seconds();
  j["rankSlots"] = a.rank_slots;
  j["rankSeconds"] = a.causes.total();
  j["ettr"] = a.ettr();
  j["causes"] = causes_json(a.causes);
  j["attempts"] = nlohmann::ordered_json::array();
  for (const goodput::AttemptAccount& at : a.attempts) {
    nlohmann::ordered_json o;
    o["attempt"] = at.attempt;
    o["start"] = journal::format_time(at.first_ms);
    o["end"] = journal::format_time(at.last_ms);
    o["rankSeconds"] = at.causes.total();
    o["causes"] = causes_json(at.causes);
    o["warmStarts"] = at.warm_starts;
    o["coldStarts"] = at.cold_starts;
    j["attempts"].push_back(o);
  }
  j["stepData"] = a.step_data;
  j["skippedLines"] = a.skipped_lines;
  j["notes"] = a.notes;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

int goodput_command(const GoodputOptions& options) {
  return log_folder_command([&] {
    const report::JobHistory history = report::read_log_folder(options.log_dir);
    const std::string text = options.format == "json" ? goodput_json(history.job, history.goodput)
                                                      : goodput_text(history.job, history.goodput);
    if (!write_all(1, text)) {
      throw std::system_error(errno, std::system_category(), "cannot write the standard output");
    }
  });
}

}  // namespace pai::launcher
