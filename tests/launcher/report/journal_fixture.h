// Journals for the report's tests: one line per record, times in milliseconds from kT0. Lines
// of format 1, as launchers before the typed journal wrote them (fields given one by one, nested
// values as their JSON text in a string), and lines of the format written now (a typed event,
// through the journal's writer, launcher/logs/journal.h).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "launcher/logs/journal.h"
#include "support/temp_dir.h"

namespace pai::testing {

/// 2026-01-02T03:04:05.000Z, the start of every fixture journal.
constexpr std::int64_t kT0 = 1767323045000;

/// One field of a format-1 line: a string, an integer, a number or a boolean.
using FieldValue = std::variant<std::string, std::int64_t, double, bool>;
/// The fields of a format-1 line, in the order they are written.
using Fields = std::vector<std::pair<std::string, FieldValue>>;

/// One format-1 journal line at kT0 + `ms`, as launchers before format 2 wrote it.
inline std::string line(std::int64_t ms, const std::string& event, const Fields& fields = {}) {
  nlohmann::ordered_json j;
  j["time"] = launcher::journal::format_time(kT0 + ms);
  j["event"] = event;
  for (const auto& [name, value] : fields) {
    std::visit([&, key = name](const auto& v) { j[key] = v; }, value);
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

/// One line at kT0 + `ms` as the journal writes `event` now.
inline std::string line(std::int64_t ms, const launcher::journal::Event& event) {
  return launcher::journal::format_record(kT0 + ms, event);
}

/// The record `text` (one line, its newline allowed) reads as; nullopt when it reads as none.
inline std::optional<launcher::journal::Entry> entry_of(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  launcher::journal::ReadTally tally;
  return launcher::journal::parse_record(text, tally);
}

inline FieldValue s(const std::string& text) { return text; }
inline FieldValue i(std::int64_t n) { return n; }

/// A one-node job whose rank 0 fails with a retryable NCCL error in attempt 0, restarts and
/// then succeeds: the journal of `<log-dir>/worker-0`.
inline std::string restarted_job_journal(const std::string& node = "localhost",
                                         const std::string& message = "loss is NaN") {
  return line(0, "launcher-started",
              {{"job", s("train")},
               {"node", s(node)},
               {"instance", s("worker-0")},
               {"processes", i(1)},
               {"pid", i(100)}}) +
         line(10, "check",
              {{"name", s("disk")},
               {"status", s("passed")},
               {"summary", s("12 GiB free")},
               {"figure", s("12")},
               {"seconds", 0.01}}) +
         line(20, "start", {{"instance", s("worker-0")}, {"attempt", i(0)}, {"processes", i(1)}}) +
         line(25, "process-started",
              {{"instance", s("worker-0")},
               {"rank", i(0)},
               {"pid", i(101)},
               {"log", s("rank-0.attempt-0.log")}}) +
         line(500, "notify", {{"instance", s("worker-0")}, {"message", s(message)}}) +
         line(1000, "exit",
              {{"instance", s("worker-0")},
               {"rank", i(0)},
               {"pid", i(101)},
               {"status", s("exit code 1")},
               {"exitCode", i(1)},
               {"retryable", true},
               {"classification", s("exit code 1: retryable (\"NCCL error\" in the log)")},
               {"matchedLine", s("NCCL error: unhandled system error")}}) +
         line(1001, "restart",
              {{"instance", s("worker-0")},
               {"attempt", i(1)},
               {"backoffSeconds", i(0)},
               {"reason", s("exit code 1: retryable (\"NCCL error\" in the log)")}}) +
         line(1010, "start",
              {{"instance", s("worker-0")}, {"attempt", i(1)}, {"processes", i(1)}}) +
         line(3000, "exit",
              {{"instance", s("worker-0")},
               {"rank", i(0)},
               {"pid", i(102)},
               {"status", s("exit code 0")},
               {"exitCode", i(0)},
               {"retryable", false},
               {"classification", s("")},
               {"matchedLine", s("")}}) +
         line(3001, "job-succeeded", {{"job", s("train")}});
}

/// Makes `dir`/`folder` and writes `journal` as its events.jsonl; returns the file's path.
inline std::string put_journal(const TempDir& dir, const std::string& folder,
                               const std::string& journal) {
  const std::string sub = dir / folder;
  ::mkdir(sub.c_str(), 0755);
  const std::string path = sub + "/events.jsonl";
  spit(path, journal);
  return path;
}

}  // namespace pai::testing
