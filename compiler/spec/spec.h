// JobSpec: the typed, validated job spec (design §3), before placement.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/document/document.h"
#include "libpai/plan.h"

namespace pai {

/// Spec `ray` (framework ray): how the head runs the entrypoint, the head role's command.
/// Read by the planner (compiler/plan/framework_launch.h); the plan holds its result, the
/// head's launch argv.
struct RaySpec {
  /// submit: `ray job submit -- ENTRYPOINT` through the head's dashboard; driver (false): the
  /// entrypoint runs as a plain driver with RAY_ADDRESS set.
  bool submit = false;
};

/// The spec after parsing and validation. Its fields are the plan's normalized fields
/// (every default filled in, ${parameters.x} substituted, runtime not yet wrapped);
/// placements are not assigned yet.
struct JobSpec {
  Plan job;
  /// Where each field was written, by field path ("roles.worker.instances"), so later
  /// stages can locate their diagnostics.
  std::map<std::string, Location> locations;
  /// Parameters as strings, after the spec's own defaults.
  std::map<std::string, std::string> parameters;
  /// Spec `ray`; defaults when absent.
  RaySpec ray;

  /// The location recorded for `path`, else for its nearest recorded parent, else the
  /// document's file with no position.
  Location where(const std::string& path) const;
};

}  // namespace pai
