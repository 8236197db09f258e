#include "compiler/slurm_script.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/time_limit.h"
#include "libpai/shell_quote.h"

namespace pai {
namespace {

constexpr const char* kHeader = R"sh(#
# Written by pai-compile. Submit with `sbatch job.sbatch`. srun starts one pai-launch per
# allocated node: the hosts in plan.json are placeholders, which every launcher replaces
# with the nodes of this allocation (`--slurm`); the first node runs the coordinator, and
# nodes beyond the job's instances wait as spares.
# Environment:
#   PAI_LAUNCH   the launcher program on the nodes (default: pai-launch)
#   PAI_JOB_DIR  this plan folder as the nodes see it (default: below)
# Exit status: srun's; 0 when every launcher succeeded.
set -u

PAI_LAUNCH=${PAI_LAUNCH:-pai-launch}
)sh";

// The largest request of any role, per field: every node gets the same allocation, and
// which role runs on which node is decided only at launch.
Resources largest_resources(const Plan& plan) {
  Resources r;
  for (const Role& role : plan.roles) {
    r.gpu = std::max(r.gpu, role.resources.gpu);
    r.cpu = std::max(r.cpu, role.resources.cpu);
    r.memory_bytes = std::max(r.memory_bytes, role.resources.memory_bytes);
  }
  return r;
}

void sbatch_option(std::string& out, const std::string& name, const std::string& value) {
  out += "#SBATCH --" + name + "=" + shell_quote(value) + "\n";
}

// The -o folder without trailing slashes, so that paths joined to it read naturally.
std::string trimmed(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

void warn_unused(const JobSpec& spec, const std::string& path, const std::string& message,
                 Diagnostics& diags) {
  diags.warning(spec.where(path), path, "--target slurm: " + message);
}

}  // namespace

void use_slurm_inventory(JobSpec& spec, Diagnostics& diags) {
  Plan& job = spec.job;
  if (!job.hosts.empty()) {
    warn_unused(spec, "hosts",
                "the hosts are ignored: the job runs on the nodes Slurm allocates to it", diags);
  }
  if (!job.spares.empty()) {
    warn_unused(spec, "spares",
                "the spares' names are ignored: " + std::to_string(job.spares.size()) +
                    (job.spares.size() == 1 ? " more node is allocated as a spare"
                                            : " more nodes are allocated as spares"),
                diags);
  }
  if (!job.coordinator_host.empty()) {
    warn_unused(spec, "coordinator.host",
                "ignored: the coordinator runs on the first node of the allocation", diags);
    job.coordinator_host.clear();
  }
  std::size_t instances = 0;
  for (const Role& role : job.roles) instances += static_cast<std::size_t>(role.instances);
  const auto placeholders = [](const char* prefix, std::size_t count) {
    std::vector<Host> hosts;
    hosts.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      std::string name = prefix + std::to_string(i);
      hosts.push_back(Host{name, name, 0});
    }
    return hosts;
  };
  job.spares = placeholders(kSlurmSparePrefix, job.spares.size());
  job.hosts = placeholders(kSlurmHostPrefix, instances);
  job.inventory = Inventory::Slurm;
}

std::string render_slurm_script(const Plan& plan, const std::string& out_dir) {
  const std::string dir = trimmed(out_dir);
  const bool absolute = !dir.empty() && dir.front() == '/';
  const Resources r = largest_resources(plan);
  const int cpus = static_cast<int>(std::ceil(r.cpu));
  std::string out = "#!/bin/bash\n";
  sbatch_option(out, "job-name", plan.name);
  sbatch_option(out, "nodes", std::to_string(plan.nodes + static_cast<int>(plan.spares.size())));
  sbatch_option(out, "ntasks-per-node", "1");
  if (const std::int64_t deadline = scheduler_deadline_seconds(plan); deadline > 0) {
    sbatch_option(out, "time", slurm_time(deadline));
  }
  // pai-launch restarts the job itself; a requeue would start it over as a new Slurm job.
  out += "#SBATCH --no-requeue\n";
  if (r.gpu > 0) sbatch_option(out, "gres", "gpu:" + std::to_string(r.gpu));
  if (cpus > 0) sbatch_option(out, "cpus-per-task", std::to_string(cpus));
  if (r.memory_bytes > 0) {
    // --mem counts MiB (Slurm's "M"); round up so the request is never below the spec's.
    constexpr std::int64_t kMiB = 1 << 20;
    sbatch_option(out, "mem", std::to_string((r.memory_bytes + kMiB - 1) / kMiB));
  }
  // sbatch resolves a relative path against the job's working directory, which is the
  // folder it was run from, as $SLURM_SUBMIT_DIR below. The folder exists: pai-compile
  // creates it, because slurmd does not and fails the job when it cannot open the file.
  sbatch_option(out, "output", dir + "/logs/slurm-%j.out");
  sbatch_option(out, "error", dir + "/logs/slurm-%j.out");
  out += kHeader;
  if (absolute) {
    out += "job_dir=${PAI_JOB_DIR:-" + shell_quote(dir) + "}\n";
  } else {
    out += "default_dir=\"${SLURM_SUBMIT_DIR:?submit this script with sbatch}\"/" +
           shell_quote(dir) + "\n";
    out += "job_dir=${PAI_JOB_DIR:-$default_dir}\n";
  }
  out += "\nsrun --ntasks-per-node=1 --kill-on-bad-exit=0";
  // Since Slurm 22.05 srun no longer inherits sbatch's --cpus-per-task, and a step
  // without it would confine each launcher and its training processes to one CPU.
  if (cpus > 0) out += " --cpus-per-task=" + std::to_string(cpus);
  out +=
      " \\\n"
      "  \"$PAI_LAUNCH\" run --plan \"$job_dir/plan.json\" --token-file \"$job_dir/job.token\" "
      "--slurm\n"
      "exit $?\n";
  return out;
}

}  // namespace pai
