// The journal's one writer and one reader of lines (events.jsonl, journal_events.h). A line is
// one JSON object `{"time":"2026-01-02T03:04:05.678Z","event":"<kName>",<fields>...}`, the
// fields in table order, nested values as JSON objects and arrays (format 2). Reading is
// tolerant, as a journal of a crashed, older or newer launcher must be readable: a line that
// is no record, an event this version does not know, a field of the wrong type are counted,
// never thrown on; a field that is missing or wrong keeps its default. Format 1 journals
// (nested values as their JSON text in a string) read into the same events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "launcher/logs/journal_events.h"

namespace pai::launcher::journal {

/// One record: when, and what.
struct Entry {
  std::int64_t unix_ms = 0;  ///< `time`, milliseconds since the epoch (UTC)
  Event event;
  bool operator==(const Entry&) const = default;
};

/// What reading found that it could not take as written.
struct ReadTally {
  std::int64_t malformed = 0;  ///< lines that are no record (not JSON, no time or event)
  std::int64_t unknown = 0;    ///< records of an event this version does not know, skipped
  std::int64_t mistyped = 0;   ///< fields of the wrong JSON type, read as their default
  bool operator==(const ReadTally&) const = default;
};

/// The line the writer writes for `event` at `unix_ms`, with its newline. Bytes of strings that
/// are not UTF-8 become U+FFFD; a newline inside a field is escaped, so a record is one line.
std::string format_record(std::int64_t unix_ms, const Event& event);

/// The journal's header record: this format, written by `pai-launch <version>`.
Header current_header();

/// Reads one line (without its newline); nullopt, counted in `tally`, when it is no record or
/// an event this version does not know. Bytes that are not UTF-8 become U+FFFD first.
std::optional<Entry> parse_record(std::string_view line, ReadTally& tally);

/// "2026-01-02T03:04:05.678Z", as the journal writes `time`.
std::string format_time(std::int64_t unix_ms);

/// `time` as milliseconds since the epoch; nullopt unless exactly of format_time's form.
std::optional<std::int64_t> parse_time(std::string_view text);

}  // namespace pai::launcher::journal
