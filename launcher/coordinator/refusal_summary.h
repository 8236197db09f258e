// Connections the coordinator refuses before they authenticate (a failed or late handshake, a
// client that hangs up on the server's proof, eviction under a flood, accept errors such as
// EMFILE) are journaled as counts per address and reason, not one record each, so a flood of
// connections cannot become a flood of the journal too.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/coordinator/coordinator_machine.h"

namespace pai::launcher::coordinator {

/// Counts refused connections per (address, reason) and reports them as records of `kind`
/// ("connections-refused"; the coordinator counts port probes apart as "port-probes"), at most
/// one round of records per interval. A round lists at most kMaxListed
/// (address, reason) pairs, the largest counts first (ties: the first seen first), as
/// {address, count, reason} (no address when it is unknown), and sums the rest into one record
/// {count} ("refused N more connections from other addresses or for other reasons"). At most
/// kMaxTracked pairs are counted apart per interval; refusals of further pairs go straight into
/// the sum. Reasons (which may quote what the peer sent) are cut to kMaxReason bytes. So a
/// round is at most kMaxListed + 1 records of at most about 400 bytes each, whatever the flood.
class RefusalSummary {
 public:
  /// (address, reason) pairs listed on their own per round.
  static constexpr std::size_t kMaxListed = 16;
  /// (address, reason) pairs counted apart per interval.
  static constexpr std::size_t kMaxTracked = 4096;
  /// Longer reasons are cut to this many bytes and "...".
  static constexpr std::size_t kMaxReason = 256;

  /// Which event the records are: journal::ConnectionsRefused or journal::PortProbes.
  enum class Kind { ConnectionsRefused, PortProbes };

  explicit RefusalSummary(Kind kind = Kind::ConnectionsRefused,
                          std::chrono::milliseconds interval = std::chrono::seconds(1))
      : kind_(kind), interval_(interval) {}

  /// Counts one connection from `address` ("" when unknown: a failed accept) refused for
  /// `reason`. `shown` false: the refusal is journaled but not shown on the terminal (a port
  /// probe); a record is shown when any refusal it counts is. Returns the records due now:
  /// after a quiet interval the first refusal is reported at once, later ones wait for
  /// next_due().
  std::vector<Record> refused(const std::string& address, const std::string& reason,
                              Clock::time_point now, bool shown = true);
  /// The records due at `now`: empty before next_due() or when nothing is pending.
  std::vector<Record> due(Clock::time_point now);
  /// When the pending counts are due; nullopt when nothing is pending.
  std::optional<Clock::time_point> next_due() const;

 private:
  struct Count {
    std::size_t count = 0;
    std::size_t first_seen = 0;  // order of arrival in this interval
    bool shown = false;
  };
  // A record of kind_ counting `count` refusals for `reason` (none: the rest) from `address`.
  Record record(std::size_t count, std::optional<std::string> reason, const std::string& address,
                std::string line) const;

  Kind kind_;
  std::chrono::milliseconds interval_;
  std::map<std::pair<std::string, std::string>, Count> pending_;  // (address, reason)
  std::size_t untracked_count_ = 0;  // refusals of pairs beyond kMaxTracked
  bool untracked_shown_ = false;
  std::optional<Clock::time_point> last_report_;
};

}  // namespace pai::launcher::coordinator
