// MPI hostfiles from a plan's placements.
#pragma once

#include <string>

#include "libpai/plan.h"

namespace pai {

/// One line per placement, in rank order: Open MPI "address slots=N" or MPICH
/// "address:N", where N is the instance's nproc_per_node. Roles whose names are in
/// `exclude_roles` are skipped (the MPI launcher role runs mpirun but holds no ranks).
std::string render_hostfile(const Plan& plan, HostfileStyle style,
                            const std::vector<std::string>& exclude_roles = {});

}  // namespace pai
