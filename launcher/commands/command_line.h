// pai-launch's command line: every subcommand's flags, read by CLI11 into the options of the
// command that runs it (run, check, ctl, status/stop/start/kill/logs, rsh).
#pragma once

namespace pai::launcher {

/// Parses argv and runs the chosen command; returns the process's exit code (design §6;
/// 2 for a usage error, 0 for --help and --version).
int launch_main(int argc, char** argv);

}  // namespace pai::launcher
