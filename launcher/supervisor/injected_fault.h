// A drill's fault in one rank's process (`pai-launch drill`, docs/drill.md), as its node's
// supervisor carries it out: rank-kill sends SIGKILL once; rank-hang stops the process with
// SIGSTOP until its seconds pass; slow-rank stops it for kSlowRankStoppedMs of every
// kSlowRankPeriodMs until then, as a CPU quota of a quarter would slow it; collective-hang
// gives the rank's telemetry writer a deadline to stay inside its collectives until, and clears
// it when the fault ends; slow-gpu starts a burn on the rank's GPU, and ends it with the fault.
// Whatever ends the fault early (the rank exits, its instance is stopped) continues a stopped
// process first, so nothing is left stopped.
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
  /// Puts on, until `until`, what the fault sustains besides signals: collective-hang's hold of
  /// the rank's collectives (the ring's drill word), slow-gpu's burn on the rank's GPU; a
  /// default time_point takes it off (the supervisor's; a recorder in tests). Putting it on may
  /// throw: the fault is then not constructed.
  using Sustain = std::function<void(Clock::time_point until)>;

  /// Puts `fault` into process `pid` at `now`: its first signal is sent, or what it sustains
  /// put on, here. `seconds` bounds rank-hang, slow-rank, collective-hang and slow-gpu (at
  /// least 1); the others are over at once. `sustain` is used by collective-hang and slow-gpu
  /// only (without one, they sustain nothing).
  InjectedFault(DrillFault fault, int pid, int seconds, Clock::time_point now, Send send,
                Sustain sustain = {});
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
  /// Ends the fault now: a stopped process is continued, what it sustains taken off. No-op once
  /// over.
  void revert();
  /// Ends the fault without a signal: its process is gone (reaped), and its pid may already be
  /// another process's. What it sustains is taken off all the same (a burn outlives the rank).
  void forget();

 private:
  void signal(int sig);

  DrillFault fault_;
  int pid_;
  Send send_;
  Sustain sustain_;
  Clock::time_point until_;
  Clock::time_point next_;  // slow-rank: its next toggle
  bool stopped_ = false;
  bool sustaining_ = false;
  bool over_ = false;
};

}  // namespace pai::launcher
