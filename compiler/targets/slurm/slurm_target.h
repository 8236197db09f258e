// The Slurm target (--target slurm): hosts from the allocation, and job.sbatch
// (slurm_script.h), which starts one pai-launch per allocated node.
#pragma once

#include "compiler/targets/target.h"

namespace pai {

/// The allocation is the inventory (use_slurm_inventory()), whatever the spec or --hosts
/// says; the plan is checked against the spec's Slurm settings, run in the pyxis container
/// when the spec has one, and written with job.sbatch and a logs/ folder for sbatch's output.
class SlurmTarget final : public Target {
 public:
  /// "slurm".
  std::string_view name() const override;
  /// use_slurm_inventory(); true.
  bool replace_inventory(JobSpec& spec, Diagnostics& diags) const override;
  /// check_for_slurm().
  void check_plan(const Plan& plan, const JobSpec& spec, Diagnostics& diags) const override;
  /// use_container().
  void adapt_plan(Plan& plan) const override;
  /// job.sbatch (render_slurm_script(), executable) and logs/, kept from an earlier output
  /// when it has one.
  void write_files(const Plan& plan, const std::string& dir,
                   const std::string& out_dir) const override;
};

}  // namespace pai
