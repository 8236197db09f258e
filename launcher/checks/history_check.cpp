#include "launcher/checks/history_check.h"

#include <chrono>
#include <ctime>

#include "launcher/checks/sanity_checks.h"

namespace pai::checks {

std::string history_time_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

HistoryRecord history_record(const std::string& node, const std::vector<CheckResult>& results) {
  HistoryRecord record;
  record.time = history_time_now();
  record.node = node;
  record.passed = all_passed(results);
  for (const auto& r : results) {
    if (r.status != CheckResult::Failed) continue;
    record.failed.push_back(r.name);
    if (record.summary.empty()) record.summary = r.name + ": " + r.summary;
  }
  return record;
}

Quarantine record_history(const std::string& dir, const HistoryRecord& record,
                          const QuarantinePolicy& policy, std::vector<std::string>* warnings) {
  try {
    append_history(dir, record);
  } catch (const HistoryError& e) {
    warnings->push_back(std::string("history not recorded: ") + e.what());
  }
  std::vector<std::string> read_warnings;
  Quarantine q = is_quarantined(dir, record.node, policy, &read_warnings);
  warnings->insert(warnings->end(), read_warnings.begin(), read_warnings.end());
  return q;
}

void keep_history(const Plan& plan, const std::string& node, std::vector<CheckResult>* results) {
  const CheckHistory& history = plan.sanity_check.history;
  if (history.dir.empty()) return;
  std::vector<std::string> warnings;
  const Quarantine q =
      record_history(history.dir, history_record(node, *results),
                     QuarantinePolicy{history.window, history.max_failures}, &warnings);
  CheckResult r = q.quarantined
                      ? make_result("history", CheckResult::Failed, "quarantined: " + q.reason)
                      : make_result("history", CheckResult::Passed,
                                    "failed " + std::to_string(q.failed) + " of its last " +
                                        std::to_string(q.considered) + " checks");
  r.detail = history_path(history.dir, node) + "\n";
  for (const std::string& w : warnings) r.detail += "warning: " + w + "\n";
  results->push_back(std::move(r));
}

}  // namespace pai::checks
