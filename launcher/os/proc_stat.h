// A process's state, parent and process group, from /proc/PID/stat.
#pragma once

#include <optional>
#include <string>

namespace pai::launcher {

/// The fields of /proc/PID/stat that pai-launch uses.
struct ProcStat {
  char state = 0;  ///< R, S, D, Z (zombie), T ...
  int ppid = 0;    ///< parent
  int pgrp = 0;    ///< process group
};

/// `proc`/PID/stat of `pid`, or nullopt when the process is gone or the file does not parse.
std::optional<ProcStat> read_proc_stat(int pid, const std::string& proc = "/proc");

/// The nearest of `pid` and its ancestors (at most `max_depth` steps up) for which
/// `wanted(pid)` holds, or 0 when none does (a process gone, or reparented to an outsider).
template <typename Predicate>
int nearest_ancestor(int pid, Predicate wanted, int max_depth = 64,
                     const std::string& proc = "/proc") {
  for (int depth = 0; pid > 1 && depth <= max_depth; ++depth) {
    if (wanted(pid)) return pid;
    const auto stat = read_proc_stat(pid, proc);
    if (!stat) return 0;
    pid = stat->ppid;
  }
  return 0;
}

}  // namespace pai::launcher
