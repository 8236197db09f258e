// Connections the coordinator refuses under a flood (too many unauthenticated connections,
// accept errors such as EMFILE) are journaled as counts, not one record each, so a flood of
// connections cannot become a flood of the journal too.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/coordinator/coordinator_machine.h"

namespace pai::launcher::coordinator {

/// Counts refused connections per reason and reports them as "connections-refused"
/// {count, reason} records, at most one round of records per interval.
class RefusalSummary {
 public:
  explicit RefusalSummary(std::chrono::milliseconds interval = std::chrono::seconds(1))
      : interval_(interval) {}

  /// Counts one refusal. Returns the records due now: after a quiet interval the first
  /// refusal is reported at once, later ones wait for next_due().
  std::vector<Record> refused(const std::string& reason, Clock::time_point now);
  /// The records due at `now`: empty before next_due() or when nothing is pending.
  std::vector<Record> due(Clock::time_point now);
  /// When the pending counts are due; nullopt when nothing is pending.
  std::optional<Clock::time_point> next_due() const;

 private:
  std::chrono::milliseconds interval_;
  std::map<std::string, std::size_t> pending_;  // reason -> refusals not yet reported
  std::optional<Clock::time_point> last_report_;
};

}  // namespace pai::launcher::coordinator
