// Where a job runs (design §9): the spec's own hosts, a Slurm allocation or a Kubernetes
// cluster. compile() runs one pipeline for every target and asks the target that --target
// names at the points where targets differ: the inventory, the plan's checks, the plan the
// nodes run, and the files written besides the artifacts (render/artifacts.h).
#pragma once

#include <string>
#include <string_view>

#include "compiler/document/diagnostics.h"
#include "compiler/spec/spec.h"
#include "libpai/plan.h"

namespace pai {

/// One place jobs run. Every step but name() has a default that changes nothing, and the
/// bare target (targets/bare/bare_target.h) is those defaults alone. A target holds no state:
/// one object serves every compile.
class Target {
 public:
  virtual ~Target() = default;

  /// The name --target takes: "bare", "k8s", "slurm".
  virtual std::string_view name() const = 0;

  /// Runs before the spec's rules are checked (spec/spec_rules.h). A target that brings the
  /// job's inventory itself (Slurm: the allocation's nodes) puts it into `spec` in place of the
  /// spec's hosts and --hosts, warning about what it ignores, and returns true. The default
  /// keeps the spec's hosts and returns false.
  virtual bool replace_inventory(JobSpec& spec, Diagnostics& diags) const;

  /// Findings about running `plan` on this target, located by `spec`'s locations (the spec
  /// `plan` was made of); asked only of a plan made without errors. None by default.
  virtual void check_plan(const Plan& plan, const JobSpec& spec, Diagnostics& diags) const;

  /// Makes `plan` the plan the target's nodes run, which is the plan written (Kubernetes: the
  /// pods as its hosts). Unchanged by default.
  virtual void adapt_plan(Plan& plan) const;

  /// Writes the target's own files into `dir`, the new output folder, along with the
  /// artifacts (ArtifactOptions::target_files); `out_dir` is -o as given. Throws what
  /// render/atomic_file.h throws. None by default.
  virtual void write_files(const Plan& plan, const std::string& dir,
                           const std::string& out_dir) const;
};

}  // namespace pai
