// Restarts of the job, told apart from restarts of instances: one decision of the restart
// policy restarts one or more instances (a sync restart of 3 is 1 decision, 3 `restart`
// records). The records of a decision come one after another and share their attempt and
// reason, and the reason names the failing instance and rank (RestartPolicyMachine::on_failure),
// so a record that repeats the previous one's pair belongs to its decision.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "launcher/logs/journal_events.h"

namespace pai::launcher::journal {

class RestartDecisions {
 public:
  /// True when `restart` starts a decision of its own; counts it.
  bool add(const Restart& restart) {
    if (restart.attempt == last_attempt_ && restart.reason == last_reason_) return false;
    last_attempt_ = restart.attempt;
    last_reason_ = restart.reason;
    ++count_;
    return true;
  }
  /// Decisions so far.
  std::int64_t count() const { return count_; }

 private:
  int last_attempt_ = -1;
  std::string last_reason_;
  std::int64_t count_ = 0;
};

}  // namespace pai::launcher::journal
