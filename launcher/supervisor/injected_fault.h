// A drill's fault in one rank's process (`pai-launch drill`, docs/drill.md), as its node's
// supervisor carries it out: rank-kill sends SIGKILL once; rank-hang stops the process with
// SIGSTOP until its seconds pass; slow-rank stops it for kSlowRankStoppedMs of every
// kSlowRankPeriodMs until then, as a CPU quota of a quarter would slow it; collective-hang
// gives the rank's telemetry writer a deadline to stay inside its collectives until, and clears
// it when the fault ends. Whatever ends the fault early (the rank exits, its instance is
// stopped) continues a stopped process first, so nothing is left stopped.
#pragma once

#include <chrono>
#include <functional>
#include <optional>

#include "libpai/drill_fault.h"

namespace pai::launcher {

class InjectedFault {
 public:
  using Clock = std::chrono::steady_clock;
  /// Sends signal `sig` to process `pid` (::kill in the supervisor; a recorder in tests).
  using Send = std::function<void(int pid, int sig)>;
  /// Sets the deadline the rank's collectives hold until (collective-hang); a default
  /// time_point clears it (the ring's drill word in the supervisor; a recorder in tests).
  using Hold = std::function<void(Clock::time_point until)>;

  /// Puts `fault` into process `pid` at `now`: its first signal is sent, or its hold set, here.
  /// `seconds` bounds rank-hang, slow-rank and collective-hang (at least 1); the others are
  /// over at once. `hold` is used by collective-hang only (without one, it holds nothing).
  InjectedFault(DrillFault fault, int pid, int seconds, Clock::time_point now, Send send,
                Hold hold = {});
  ~InjectedFault();
  InjectedFault(const InjectedFault&) = delete;
  InjectedFault& operator=(const InjectedFault&) = delete;

  DrillFault fault() const { return fault_; }
  int pid() const { return pid_; }
  /// Whether the fault is over: its seconds passed, revert() was called, or it was never
  /// bounded. A fault that is over has sent its last signal.
  bool over() const { return over_; }
  /// When on_deadline() has something to do next; nullopt once over.
  std::optional<Clock::time_point> next_deadline() const;
  /// Carries out what is due at `now`: a slow-rank's next stop or continue, the end of the
  /// fault's seconds (a SIGCONT). True when this call ended the fault.
  bool on_deadline(Clock::time_point now);
  /// Ends the fault now: a stopped process is continued, a hold cleared. No-op once over.
  void revert();
  /// Ends the fault without a signal: its process is gone (reaped), and its pid may already be
  /// another process's.
  void forget() { over_ = true; }

 private:
  void signal(int sig);

  DrillFault fault_;
  int pid_;
  Send send_;
  Hold hold_;
  Clock::time_point until_;
  Clock::time_point next_;  // slow-rank: its next toggle
  bool stopped_ = false;
  bool holding_ = false;
  bool over_ = false;
};

}  // namespace pai::launcher
