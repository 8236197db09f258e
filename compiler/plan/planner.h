// JobSpec -> Plan: placement (libpai/placement.h) and runtime wrapping.
#pragma once

#include "compiler/document/diagnostics.h"
#include "compiler/spec/spec.h"
#include "libpai/plan.h"

namespace pai {

/// The complete plan: spec fields, the framework's ports and launch shape (ray's head and
/// workers, xgboost's tracker; framework_launch.h), each role's launch_argv wrapped by the
/// runtime (docker run ... / apptainer exec ...), placements, ranks, ports, master,
/// coordinator.
/// Placement failures (e.g. port range exhausted) are located diagnostics.
Plan make_plan(const JobSpec& spec, Diagnostics& diags);

}  // namespace pai
