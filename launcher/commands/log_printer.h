// How `pai-launch logs` prints ranks' output, whether it comes from a running job's
// coordinator or from the log folder of a job that is over: "[worker-0/3] " before each line of
// every rank (colored on a terminal); the bytes alone for one rank; with --merge, "[node:3] "
// and identical lines of several ranks printed once (logs/log_merge.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "launcher/logs/log_merge.h"
#include "launcher/logs/log_relay.h"

namespace pai::launcher {

class LogPrinter {
 public:
  struct Options {
    int out_fd = 1;
    bool one_rank = false;  ///< --rank: the bytes as they are
    bool merge = false;     ///< --merge
    /// --merge: how long a line waits for copies from other ranks; nullopt: until finish()
    std::optional<LogMerge::Clock::duration> merge_window;
  };

  explicit LogPrinter(const Options& options);

  /// Bytes of global rank `rank` of instance `instance` ("worker-0"), on node `host`.
  void feed(const std::string& instance, const std::string& host, int rank, std::string_view data);
  /// Merged output is printed as each group's window passes: when the next one is due, and
  /// expire() then.
  std::optional<LogMerge::Clock::time_point> next_due() const;
  void expire();
  /// Prints what waits (partial lines, merged groups).
  void finish();

 private:
  Options options_;
  bool color_;
  std::map<int, std::unique_ptr<LogRelay>> relays_;
  std::optional<LogMerge> merge_;
};

}  // namespace pai::launcher
