// `pai-launch drill-burn`: the burn a drill's slow-gpu runs on one rank's GPU (docs/drill.md):
// the burn check's GEMMs (launcher/checks/gpu_burner.h) on that GPU, sharing its time with the
// rank for the fault's seconds. The node's supervisor starts it (supervisor/gpu_load.h); it is
// not meant to be run by hand.
#pragma once

#include <string>
#include <vector>

namespace pai::launcher {

/// `pai-launch drill-burn GPU SECONDS [LIBCUDA]`: burns GPU (its CUDA index) for SECONDS (1 to
/// kMaxFaultSeconds + a minute), printing "burning GPU <index> (<name>) for <seconds> s" on
/// stdout once its first GEMMs ran. Returns 0 when it burned its seconds, 1 when it could not
/// (the reason on stderr: no driver, no such GPU, a failing call), 2 for malformed arguments.
/// LIBCUDA is the CUDA driver library (default libcuda.so.1).
int drill_burn_command(const std::vector<std::string>& args);

}  // namespace pai::launcher
