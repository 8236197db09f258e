#include "launcher/supervisor/injected_fault.h"

#include <algorithm>
#include <csignal>
#include <utility>

namespace pai::launcher {

InjectedFault::InjectedFault(DrillFault fault, int pid, int seconds, Clock::time_point now,
                             Send send, Sustain sustain)
    : fault_(fault),
      pid_(pid),
      send_(std::move(send)),
      sustain_(std::move(sustain)),
      until_(now + std::chrono::seconds(std::max(seconds, 1))) {
  switch (fault_) {
    case DrillFault::RankKill:
    case DrillFault::NodeLoss:  // the node's launcher is the process
      signal(SIGKILL);
      over_ = true;
      break;
    case DrillFault::RankHang:
      signal(SIGSTOP);
      next_ = until_;
      break;
    case DrillFault::SlowRank:
      signal(SIGSTOP);
      next_ = std::min(until_, now + std::chrono::milliseconds(kSlowRankStoppedMs));
      break;
    case DrillFault::CollectiveHang:
    case DrillFault::SlowGpu:
      if (sustain_) sustain_(until_);
      sustaining_ = static_cast<bool>(sustain_);
      next_ = until_;
      break;
    case DrillFault::SlowLink:
    case DrillFault::DroppedLink:
    case DrillFault::DiskFull:  // the node's launcher carries these out (node/node_faults.h)
      over_ = true;
      break;
  }
}

InjectedFault::~InjectedFault() { revert(); }

void InjectedFault::signal(int sig) {
  send_(pid_, sig);
  if (sig == SIGSTOP) stopped_ = true;
  if (sig == SIGCONT) stopped_ = false;
}

std::optional<InjectedFault::Clock::time_point> InjectedFault::next_deadline() const {
  if (over_) return std::nullopt;
  return next_;
}

bool InjectedFault::on_deadline(Clock::time_point now) {
  if (over_ || now < next_) return false;
  if (now >= until_) {
    revert();
    return true;
  }
  // slow-rank: the cycle goes on from where it is, not from when this call came.
  if (stopped_) {
    signal(SIGCONT);
    next_ =
        std::min(until_, now + std::chrono::milliseconds(kSlowRankPeriodMs - kSlowRankStoppedMs));
  } else {
    signal(SIGSTOP);
    next_ = std::min(until_, now + std::chrono::milliseconds(kSlowRankStoppedMs));
  }
  return false;
}

void InjectedFault::forget() {
  stopped_ = false;
  revert();
}

void InjectedFault::revert() {
  if (over_) return;
  if (stopped_) signal(SIGCONT);
  if (sustaining_) {
    sustaining_ = false;
    sustain_(Clock::time_point{});
  }
  over_ = true;
}

}  // namespace pai::launcher
