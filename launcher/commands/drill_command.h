// `pai-launch drill`: a fault campaign against a running job (docs/drill.md). For each fault
// type it waits until the job steps steadily, has the coordinator put the fault into one rank
// of one instance (or, for node-loss, that instance's launcher), waits for the job to notice
// and to step again, and scores it from the journals (report/drill_scorecard.h): time to
// detect, whether the right rank or node was named, time to recover, steps lost. Faults go
// only into the job's own processes, and the bounded ones are undone by the node after their
// seconds whatever happens to the drill.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "launcher/commands/coordinator_address.h"
#include "libpai/drill_fault.h"

namespace pai::launcher {

/// What `pai-launch drill` asks for.
struct DrillOptions {
  JobLocator locator;  ///< the job, as the control commands find it; its log folder too
  /// The faults, in order (default: rank-kill, rank-hang, slow-rank, node-loss; the others of
  /// DrillFault only when named).
  std::vector<DrillFault> faults = {DrillFault::RankKill, DrillFault::RankHang,
                                    DrillFault::SlowRank, DrillFault::NodeLoss};
  /// The instance the faults go into, "role-index"; "" = the job's last instance on a node
  /// that does not serve the coordinator (the plan's coordinator host).
  std::string instance;
  /// Its local rank; -1 = its last.
  int rank = -1;
  /// How long rank-hang and slow-rank last.
  std::chrono::seconds hold{60};
  /// How long to wait for the job to step steadily before each fault.
  std::chrono::seconds settle{120};
  /// How long to wait, after a fault, for its verdict and for the job to step again.
  std::chrono::seconds timeout{300};
  std::string format = "text";  ///< "text" (a table) or "json"
  int out_fd = 1;
  int err_fd = 2;
};

/// Runs the drill and prints the scorecard. Exit codes: 0 every fault injected was detected,
/// named right and (where the job restarted) recovered from; 1 one was not, or the drill could
/// not go on (the coordinator gone, a journal unreadable); 2 usage (bad arguments, the job or
/// its log folder cannot be located).
int drill_command(const DrillOptions& options);

}  // namespace pai::launcher
