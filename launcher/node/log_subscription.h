// What a node agent needs to stream its ranks' logs for `pai-launch logs` (logs/log_stream.h
// is the real one). The chunks come back to the agent through NodeAgent::on_log_output().
#pragma once

#include <cstdint>
#include <string>

namespace pai::launcher {

/// The coordinator's subscription to this node's rank logs.
class LogSubscription {
 public:
  virtual ~LogSubscription() = default;

  /// Follows rank `rank` (global; -1 = every rank), starting with the last `lines` lines (-1:
  /// every line) within the last `tail` bytes of each log, at a line boundary; a subscription
  /// while subscribed starts over.
  virtual void subscribe(int rank, std::int64_t tail, int lines) = 0;
  virtual void unsubscribe() = 0;
  virtual bool subscribed() const = 0;
  /// Rank `rank` (global) writes to `path`; what is new there is sent, while subscribed.
  virtual void grew(int rank, const std::string& path) = 0;
};

}  // namespace pai::launcher
