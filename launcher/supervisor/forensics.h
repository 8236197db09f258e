// Hang forensics (design §12): before a hung instance is stopped, what each of its ranks was
// doing is collected in parallel and kept under `<log dir>/forensics/attempt-N/`: its Python
// stack (what faulthandler wrote to its log after the SIGUSR1, or `py-spy dump`), its native
// stack (`eu-stack`, else `gdb`), its telemetry standing, and the node's kernel Xid lines.
// Each rank's stacks are judged (policy/stack_verdict.h): in a collective, or outside.
//
// Tools run as child processes with their output in memory (memfd): the launcher's loop
// never waits for them. It hands their exits to on_child_exit() and calls on_deadline(); at
// the deadline a tool still running is killed and reported as timed out. Nothing here is
// fatal: a tool that fails, a rank that is gone, a folder that cannot be written are each
// reported, in the rank's file or in Report::errors.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/policy/stack_verdict.h"
#include "launcher/supervisor/rank_telemetry.h"

namespace pai::launcher {

/// The stack tools found on the launcher's PATH; empty = not installed.
struct ForensicsTools {
  std::string py_spy;
  std::string eu_stack;
  std::string gdb;
  /// Looks each up in `path_list` (a PATH).
  static ForensicsTools from_path(const std::string& path_list);
};

/// What the collection of one instance's ranks is told.
struct ForensicsOptions {
  using Clock = std::chrono::steady_clock;
  /// `<log dir>/forensics/attempt-N`; created (with parents) when the files are written.
  std::string folder;
  std::string instance;  ///< "worker-0": names the node-level file (`xid.worker-0.txt`)
  ForensicsTools tools;
  /// Tools start this long after the stack-dump signals, so that faulthandler has written
  /// before a debugger stops the process.
  std::chrono::milliseconds tool_delay{200};
  /// Collection ends once every tool ended and this long passed (faulthandler's output
  /// reaches the log through the launcher's loop), or at the deadline given.
  std::chrono::milliseconds min_window{500};
  /// The kernel log read for Xid lines.
  std::string kmsg_path = "/dev/kmsg";
};

/// One rank as the collection starts.
struct ForensicsRank {
  int rank = 0;  ///< global
  int local_rank = 0;
  int pid = 0;
  std::string log_path;         ///< its log; what it gained past log_offset is its dump
  std::int64_t log_offset = 0;  ///< the log's size when the dump was asked for
  /// Its telemetry standing (RankTelemetry::standing); nullopt without telemetry.
  std::optional<RankTelemetrySummary> telemetry;
};

/// Collects the forensics of one instance's ranks. Single-threaded, driven by the
/// launcher's loop.
class Forensics {
 public:
  using Clock = std::chrono::steady_clock;

  /// What the collection found.
  struct Report {
    std::string folder;
    bool kept = false;  ///< the folder exists (a file in it may still have failed: errors)
    std::vector<RankStackVerdict> ranks;  ///< in the order given
    /// Files that could not be written, tools that could not start: "<path>: <why>".
    std::vector<std::string> errors;
  };

  /// Starts collecting at `now` (the stack-dump signals were just sent), ending by
  /// `deadline` at the latest. Reads the kernel log now; starts the tools at
  /// now + tool_delay.
  Forensics(ForensicsOptions options, std::vector<ForensicsRank> ranks, Clock::time_point now,
            Clock::time_point deadline);
  ~Forensics();
  Forensics(const Forensics&) = delete;
  Forensics& operator=(const Forensics&) = delete;

  /// When on_deadline() has something to do; nullopt once finished.
  std::optional<Clock::time_point> next_deadline() const;
  /// Starts the tools when due; at the deadline kills those still running.
  void on_deadline(Clock::time_point now);
  /// A child ended: true when it was one of the tools (its output is kept).
  bool on_child_exit(int pid, int wait_status);
  /// Whether finish() may be called: every tool ended after min_window, or the deadline
  /// passed.
  bool ready(Clock::time_point now) const;
  /// Reads each rank's log past its offset, judges the stacks, writes `rank-R.txt` for each
  /// rank and the Xid file. Call once, after the ranks' output was drained into their logs.
  Report finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher
