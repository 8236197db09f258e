// The goodput account of a running job, read from its log folder again and again by the
// launcher serving the coordinator (docs/goodput.md, "While the job runs"), on a thread of its
// own: no loop waits on the file system.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "launcher/report/log_folder.h"

namespace pai::launcher::report {

class GoodputWatch {
 public:
  /// Called on the watch's thread with each account read that counts a launcher's journal.
  using Deliver = std::function<void(const LiveAccount&)>;
  /// Called on the watch's thread when a read fails, once per distinct message in a row
  /// ("no journal in DIR ...", "DIR/worker-0/events.jsonl: Permission denied").
  using Warn = std::function<void(const std::string&)>;

  /// Reads `log_dir` at once, then again `interval` after each read ends, or twenty times the
  /// read's own duration if that is longer (a log folder that takes long to read costs the
  /// host at most 5% of a core).
  GoodputWatch(std::string log_dir, std::chrono::milliseconds interval, Deliver deliver, Warn warn);
  /// Stops; a read under way is finished first.
  ~GoodputWatch();
  GoodputWatch(const GoodputWatch&) = delete;
  GoodputWatch& operator=(const GoodputWatch&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher::report
