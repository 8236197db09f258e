// The Slurm target (design §9): a plan whose hosts come from the allocation, and the sbatch
// script that starts one pai-launch per allocated node through srun.
//
// The compiler cannot know which nodes Slurm will allocate, so the plan's inventory is
// placeholders ("slurm-0".., spares "slurm-spare-0"..) and plan.inventory is slurm. Each
// `pai-launch run --slurm` replaces them with the allocation's nodes in order and places the
// job again (launcher/node/slurm_inventory.h): placement depends only on the order of the hosts,
// so every node computes the same ranks and ports without talking to the others.
#pragma once

#include <string>

#include "compiler/document/diagnostics.h"
#include "compiler/spec/spec.h"
#include "libpai/plan.h"

namespace pai {

/// Prefixes of the placeholder hosts: "slurm-<i>" and "slurm-spare-<i>".
inline constexpr const char* kSlurmHostPrefix = "slurm-";
inline constexpr const char* kSlurmSparePrefix = "slurm-spare-";

/// Makes `spec` a job for a Slurm allocation, before the spec's rules are checked: one
/// placeholder host per role instance and one placeholder spare per spare of the spec
/// (address = name, slots not stated), inventory slurm, and no coordinator host (the
/// coordinator runs on the allocation's first node, where sbatch runs the script). Warns,
/// located, when the spec names hosts or spares or a coordinator host, since those are not
/// used.
void use_slurm_inventory(JobSpec& spec, Diagnostics& diags);

/// Findings about running `plan` under Slurm, located by `spec`: a `slurm.segment` that does
/// not divide the node count of the job (or of a component of a heterogeneous one), which
/// Slurm allocates in whole segments (an error).
void check_for_slurm(const Plan& plan, const JobSpec& spec, Diagnostics& diags);

/// With a pyxis container (`slurm.container`), `plan` as the nodes run it: pai-launch runs in
/// the container, so the job's processes run beside it, runtime host (each role's launch argv
/// is its command, whatever runtime the spec named). Unchanged without a container.
void use_container(Plan& plan);

/// The sbatch script (job.sbatch) of a plan made for Slurm. `out_dir` is the folder
/// pai-compile writes (-o as given): the script looks for plan.json and job.token there at
/// run time, at the path as given when it is absolute, else under $SLURM_SUBMIT_DIR (the
/// folder sbatch was run from); $PAI_JOB_DIR overrides it, $PAI_LAUNCH names the launcher.
///   #SBATCH --job-name, --time (timeLimit past pai's own stop, when the plan has one),
///   --signal=TERM@<stop_lead_seconds> (to the launchers), --no-requeue, --output/--error
///   <out_dir>/logs/slurm-%j.out; then per node shape the spec's --partition, --account,
///   --qos, --reservation, then --nodes, the spec's --segment, --ntasks-per-node=1,
///   --exclusive, --gpus-per-node=N, --cpus-per-task=N, --mem=<MiB> (each only when the shape
///   states it). Nodes are taken in placement order (the roles' instances, then the spares,
///   which ask for the largest of every field); when consecutive nodes differ in shape, the
///   job is heterogeneous, one component (`#SBATCH hetjob`) per run of one shape, so that a
///   CPU-only role asks no GPU. Then srun (over every component, `--het-group`) starts
///   `"$PAI_LAUNCH" run --plan ... --token-file ... --slurm` on every node, in a
///   heterogeneous job with SLURM_JOB_NODELIST set to the components' node lists in order;
///   srun's --mpi is the spec's `slurm.mpi`, else pmix for an mpi job; with `slurm.container`
///   srun runs pai-launch in that pyxis container (--container-image, --container-mounts of
///   the plan folder, the spec's mounts and output and the container's own mounts,
///   --container-workdir, --container-writable or --container-readonly,
///   --container-mount-home or --no-container-mount-home, --container-name). The script exits
///   with srun's status.
///   With `slurm.requeue` N > 0, the requeue chain: before srun the script submits its
///   successor (`sbatch --parsable --dependency=singleton --export=ALL,PAI_REQUEUE_LEFT=<left
///   - 1> "$0"`; left = $PAI_REQUEUE_LEFT, else N; none at 0) and srun's launchers get
///   `--verdict-file "$job_dir/logs/slurm-$SLURM_JOB_ID.verdict"`. After srun the job's exit
///   code is that file's, when the coordinator's launcher wrote it, else srun's; a verdict (0
///   or kPaiVerdictExitCodes) cancels the successor, anything else (3: the coordinator lost;
///   a killed coordinator's launcher) leaves it to run the job again, and so does a batch
///   host that died. SIGTERM to the script (scancel) cancels the successor unless Slurm ended
///   the job NODE_FAIL or PREEMPTED. The script exits with that exit code.
///   Every value from the plan is quoted with shell_quote(). Deterministic.
std::string render_slurm_script(const Plan& plan, const std::string& out_dir);

}  // namespace pai
