// `pai-launch torchrun ARGS...`, and pai-launch called through a link named `torchrun`:
// torchrun's command line run as a pai job (docs/torchrun.md). The compiler's library makes
// the plan (compiler/torchrun/torchrun_spec.h); `run` runs it (run_command.h).
#pragma once

#include <string>
#include <vector>

namespace pai::launcher {

/// Runs `args` (the words after "torchrun") as torchrun would, with pai's supervision. Exit
/// codes as torchrun's where the user sees them: 0 success, 1 the job failed; 2 a command
/// line pai cannot run (said with the flag it is about) or a setup problem; 128+N stopped by
/// signal N.
int torchrun_command(const std::vector<std::string>& args);

}  // namespace pai::launcher
