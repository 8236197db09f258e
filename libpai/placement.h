// Placement: which host runs which role instance, ranks, ports, master and coordinator.
//
// The compiler calls it once; the launcher calls it again when a spare replaces a node or
// when the inventory is only known at launch (Slurm), so both sides agree by construction.
#pragma once

#include <string>
#include <vector>

#include "libpai/plan.h"

namespace pai {

/// Assigns `plan.placements`, `plan.world_size`, `plan.nodes`, `plan.master` and
/// `plan.coordinator` from `plan.roles` (in rank order) and `hosts` (one instance per host,
/// in order). Ports are taken per host from [port_range_min, port_range_max]: first the
/// coordinator's (on its host), then MASTER_PORT (on the master's host), then each
/// instance's labelled ports in label order; no two reservations on one host collide.
/// Throws std::invalid_argument if there are fewer hosts than instances or the port
/// range is exhausted on a host.
void place(Plan& plan, const std::vector<Host>& hosts);

}  // namespace pai
