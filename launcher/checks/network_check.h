// The `network` check: the fabric's interface is up with an address, its RDMA devices have an
// active port (and for RoCE the GID index is configured), the coordinator is reachable and the
// ports the plan reserved on this node are free (and held from then on: port_reservations.h).
#pragma once

#include <cstdint>
#include <string>

#include "launcher/checks/check_options.h"
#include "launcher/checks/check_result.h"
#include "libpai/plan.h"

namespace pai::checks {

/// Runs the network check for `placement`. The coordinator counts as reachable when a TCP
/// connect to it succeeds or is refused (a refusal proves a route and a live host; the
/// coordinator may simply not listen yet); it fails on ENETUNREACH/EHOSTUNREACH, on a name that
/// does not resolve and on no answer within options.connect_timeout_ms. Ports are free when a
/// TCP socket can bind them on all addresses and, with options.reservations, no other
/// launcher on this host reserved them: each is then reserved (held until the launcher
/// exits), so two jobs checking the same ports cannot both pass.
CheckResult run_network_check(const Plan& plan, const Placement& placement,
                              const CheckOptions& options);

/// Why a TCP connect to `address`:`port` shows the host unreachable, or "" when it is reachable
/// in the sense above.
std::string coordinator_unreachable(const std::string& address, int port, std::int64_t timeout_ms);

}  // namespace pai::checks
