#include "compiler/targets/slurm/slurm_target.h"

#include "compiler/render/atomic_file.h"
#include "compiler/targets/slurm/slurm_script.h"

namespace pai {

std::string_view SlurmTarget::name() const { return "slurm"; }

bool SlurmTarget::replace_inventory(JobSpec& spec, Diagnostics& diags) const {
  use_slurm_inventory(spec, diags);
  return true;
}

void SlurmTarget::check_plan(const Plan& plan, const JobSpec& spec, Diagnostics& diags) const {
  check_for_slurm(plan, spec, diags);
}

void SlurmTarget::adapt_plan(Plan& plan) const { use_container(plan); }

void SlurmTarget::write_files(const Plan& plan, const std::string& dir,
                              const std::string& out_dir) const {
  make_directories(dir + "/logs");  // sbatch's --output; an earlier output's logs/ wins
  write_new_file(dir + "/job.sbatch", render_slurm_script(plan, out_dir), FileAccess::Executable);
}

}  // namespace pai
