// Which signals a process catches (its SigCgt in /proc/PID/status), so that a signal meant to
// ask for something (a stack dump) never reaches a process for which it is fatal by default:
// SIGUSR1 ends a plain Python process, SIGQUIT dumps its core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pai::launcher {

/// The bit mask of the signals `pid` has a handler for (bit N-1 for signal N), or nullopt when
/// it is gone or `proc`/PID/status cannot be read.
std::optional<std::uint64_t> caught_signals(int pid, const std::string& proc = "/proc");

/// The processes of process group `pgid` (from `proc`/PID/stat), zombies excluded.
std::vector<int> process_group_members(int pgid, const std::string& proc = "/proc");

/// Sends `sig` to each member of group `pgid` that catches it; returns how many got it.
int signal_catchers(int pgid, int sig, const std::string& proc = "/proc");

}  // namespace pai::launcher
