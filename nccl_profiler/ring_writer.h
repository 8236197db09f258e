// The writing end of the rank's telemetry ring (include/pai/telemetry.h) inside an NCCL
// process: one per process, shared by every communicator the plugin profiles.
#pragma once

#include <cstdint>

namespace pai::nccl_profiler {

/// Takes one use of the ring named by $PAI_TELEMETRY_FILE, attaching to it on the first use:
/// opens it, checks its header and size as pai.telemetry does, takes the writer's lock
/// (flock LOCK_EX | LOCK_NB), maps it shared, stores this process's pid as writer_pid and
/// continues from its head. Returns whether records can be written: false (and no use taken)
/// without the variable, for a file that is not a valid ring, or when another process (or
/// another open file of this one, such as pai.telemetry's) writes it. Never throws; callers
/// serialize acquire and release.
bool ring_acquire();

/// Gives back one use; the last one unmaps the ring and closes it, which drops the writer's
/// lock. The next acquire attaches again (to the variable's value then).
void ring_release();

/// Appends a collective record (`kind` COLLECTIVE_ENTER or COLLECTIVE_EXIT, step -1) stamped
/// with CLOCK_MONOTONIC now. Thread-safe: one lock orders the process's appends, and the time
/// is taken inside it, so times in the ring never go back. Does nothing while no use is held,
/// and in a process forked from the writer.
void ring_append(std::uint16_t kind, std::uint16_t op, std::uint32_t group, std::uint64_t seq,
                 std::uint64_t bytes);

}  // namespace pai::nccl_profiler
