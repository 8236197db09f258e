// How often a coordinator and its launchers beat, and how long each waits for the other
// (docs/protocol.md, "Both ways"). Both ends derive it from the same plan, so nothing about it
// travels on the wire.
#pragma once

#include <cstddef>

#include "libpai/plan.h"

namespace pai::net {

/// A launcher not heard from for this many heartbeat intervals is lost. A launcher whose
/// coordinator acknowledges nothing it sent for as long (TCP_USER_TIMEOUT: the host is down or
/// the link cut) gives up on it, however rarely the coordinator beats.
inline constexpr int kHeartbeatMisses = 5;
/// The beats a coordinator sends per heartbeat interval, all launchers together, are kept
/// near this: at 8,192 launchers its own beats were a third of its heartbeat work
/// (bench/README.md).
inline constexpr std::size_t kCoordinatorBeatsPerInterval = 1024;
/// How many intervals late a beat of the coordinator may come before its launchers give up.
inline constexpr int kCoordinatorBeatSlack = 3;

/// Every how many intervals the coordinator beats each launcher of a plan of `nodes` nodes:
/// every other interval up to 2,048 nodes, then one interval more per 1,024 nodes (8 at
/// 8,192).
int coordinator_beat_intervals(std::size_t nodes);

/// How many intervals a launcher of a plan of `nodes` nodes waits for a beat of its
/// coordinator: the beats' period and the slack (5 up to 2,048 nodes, 11 at 8,192). A stalled
/// coordinator of a large job is noticed that late; a dead or unreachable one within
/// kHeartbeatMisses intervals (the connection closes, or stops being acknowledged).
int coordinator_misses(std::size_t nodes);

/// The same for `plan`: its hosts and spares, each of which runs a launcher.
int coordinator_beat_intervals(const Plan& plan);
int coordinator_misses(const Plan& plan);

}  // namespace pai::net
