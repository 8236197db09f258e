#include "compiler/targets/slurm/slurm_script.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/targets/time_limit.h"
#include "libpai/exit_codes.h"
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
# Signals: before the time limit (--signal) and on scancel, Slurm sends SIGTERM to every
# pai-launch, and they stop the job as a cancel (exit 143). Not to this script: srun ends its
# tasks with SIGKILL when it gets SIGTERM.
# Accounting: a job pai stopped for its time limit (pai's timeLimit, or Slurm's --signal
# before the limit) ends as Slurm's TIMEOUT, one stopped otherwise (scancel --signal=TERM,
# pai-launch cancel) as CANCELLED, a failed one as FAILED.
# Exit status: srun's; 0 when every launcher succeeded.
set -u

PAI_LAUNCH=${PAI_LAUNCH:-pai-launch}
)sh";

// With a pyxis container: the plan folder is mounted into it at its own path, which pyxis'
// --container-mounts cannot express when the path holds ',' or ':'.
constexpr const char* kContainerCheck = R"sh(# pyxis mounts this folder at the same path.
case $job_dir in
  *[,:]*)
    echo "job.sbatch: pyxis cannot mount $job_dir (it has ',' or ':')" >&2
    exit 2
    ;;
esac
)sh";

// The requeue chain (slurm.requeue), before srun: the successor, this script again, which
// singleton holds until this job is over (one job of a name and user runs at a time), with one
// run fewer left. scancel sends SIGTERM to this shell too; the trap runs once srun is gone.
constexpr const char* kChainStart = R"sh(
# The requeue chain (slurm.requeue): the successor, this script again, held by Slurm until
# this job is over (singleton). It runs the job again when this one ends without a verdict
# (the coordinator's launcher or its node died: the others exit 3); a verdict, or a cancel,
# cancels it. `scancel --name` cancels the chain.
successor=
cancel_successor() {
  [[ -n $successor ]] || return 0
  echo "job.sbatch: $1: cancelling job $successor" >&2
  scancel "$successor" || echo "job.sbatch: cannot cancel job $successor" >&2
  successor=
}

# SIGTERM to this shell: scancel, or Slurm ending the job (a lost node, a preemption, its
# time limit). Only a lost node or a preemption leaves the successor to run the job again.
on_term() {
  local state
  state=$(scontrol show job "${SLURM_JOB_ID:-}" 2>/dev/null | grep -o -m 1 'JobState=[A-Z_]*')
  state=${state#JobState=}
  case $state in
    NODE_FAIL | PREEMPTED)
      [[ -z $successor ]] || echo "job.sbatch: the job ended $state: job $successor runs it again" >&2
      ;;
    *) cancel_successor "the job was stopped (${state:-state unknown})" ;;
  esac
  exit 143
}
trap on_term TERM

requeue_left=${PAI_REQUEUE_LEFT:-MAX_SUCCESSORS}
case $requeue_left in '' | *[!0-9]*) requeue_left=0 ;; esac
if ((requeue_left > 0)); then
  if submitted=$(sbatch --parsable --dependency=singleton \
    --export=ALL,PAI_REQUEUE_LEFT=$((requeue_left - 1)) "$0"); then
    successor=${submitted%%;*}
    echo "job.sbatch: requeue chain: submitted job $successor, which runs the job again if" \
      "this one ends without a verdict ($((requeue_left - 1)) more after it)" >&2
  else
    echo "job.sbatch: requeue chain: cannot submit the successor; this run has none" >&2
  fi
fi
# The coordinator's launcher writes the job's exit code here when it ends.
verdict_file=$job_dir/logs/slurm-${SLURM_JOB_ID:-0}.verdict
)sh";

// After srun, with the chain: the job's verdict is the coordinator's launcher's, when it
// wrote one. srun's status is the highest exit code of the tasks or the highest signal of one
// a signal ended (srun(1), RETURN VALUE), so a launcher that lost the coordinator (3) would
// hide the coordinator's 0 or 1. A verdict cancels the successor; anything else leaves it.
constexpr const char* kChainEnd = R"sh(status=$?

# The job's verdict is the coordinator's launcher's when it wrote one: srun's status is the
# highest of the launchers', where one that lost the coordinator (3) would hide it.
verdict=$(cat -- "$verdict_file" 2>/dev/null) || verdict=
if [[ $verdict =~ ^[0-9]+$ ]]; then status=$verdict; fi
case $status in
  VERDICTS) cancel_successor "the job ended with a verdict (exit $status)" ;;
  *)
    [[ -z $successor ]] ||
      echo "job.sbatch: the job ended without a verdict (exit $status): job $successor runs it again" >&2
    ;;
esac
trap - TERM
)sh";

// Replaces the one `placeholder` in `text` with `value`.
std::string replaced(std::string text, const std::string& placeholder, const std::string& value) {
  text.replace(text.find(placeholder), placeholder.size(), value);
  return text;
}

// The exit codes that are a verdict of the job, as a case pattern: 0 and pai-launch's.
std::string verdict_pattern() {
  std::string out = "0";
  for (int code : kPaiVerdictExitCodes) out += " | " + std::to_string(code);
  return out;
}

// Slurm's --signal takes at most this many seconds (a 16-bit field).
constexpr std::int64_t kMaxSignalLead = 65535;

// After srun: how Slurm's accounting records a job the launchers stopped (exit 143). Within
// LEFT_AT_STOP seconds of its time limit, pai stopped it for that limit (its own timeLimit,
// which --time outlasts by the stop's lead, or --signal's SIGTERM, which Slurm may send up to
// a minute early): the limit is cut to the minutes used, so that Slurm ends the job at its
// next check as TIMEOUT, and the script waits for that. Any other stop is a cancel, which
// scancel records as CANCELLED. A failure (exit 1) is FAILED as it is.
constexpr const char* kAccounting = R"sh(
# Slurm's [D-][H:]M:S (squeue's %L and %M) in seconds; fails for UNLIMITED and the like.
slurm_seconds() {
  local t=$1 days=0 a b c
  case $t in '' | *[!0-9:-]*) return 1 ;; esac
  if [[ $t == *-* ]]; then days=${t%%-*} t=${t#*-}; fi
  IFS=: read -r a b c <<<"$t"
  if [[ -n $c ]]; then :; elif [[ -n $b ]]; then c=$b b=$a a=0; else c=$a b=0 a=0; fi
  echo $((((10#$days * 24 + 10#$a) * 60 + 10#$b) * 60 + 10#$c))
}

if [[ $status -eq 143 && -n ${SLURM_JOB_ID:-} ]]; then
  if left=$(slurm_seconds "$(squeue -h -j "$SLURM_JOB_ID" -o %L 2>/dev/null)") &&
    ((left <= LEFT_AT_STOP)); then
    used=$(slurm_seconds "$(squeue -h -j "$SLURM_JOB_ID" -o %M 2>/dev/null)") || used=0
    echo "job.sbatch: pai stopped the job for its time limit; Slurm ends it as TIMEOUT" >&2
    scontrol update JobId="$SLURM_JOB_ID" TimeLimit=$((used < 120 ? 1 : used / 60)) ||
      echo "job.sbatch: cannot cut the time limit; waiting for it ($left s)" >&2
    sleep $((left + 180))
  else
    echo "job.sbatch: the job was stopped; cancelling it, so that Slurm records CANCELLED" >&2
    scancel "$SLURM_JOB_ID"
  fi
fi
exit "$status"
)sh";

// What one node of the job asks Slurm for.
struct NodeShape {
  int gpus = 0;
  int cpus = 0;              // rounded up: Slurm counts whole CPUs
  std::int64_t mem_mib = 0;  // rounded up: --mem counts MiB (Slurm's "M")

  bool operator==(const NodeShape&) const = default;
};

NodeShape shape_of(const Resources& r) {
  constexpr std::int64_t kMiB = 1 << 20;
  return NodeShape{r.gpu, static_cast<int>(std::ceil(r.cpu)), (r.memory_bytes + kMiB - 1) / kMiB};
}

// One component of the job: consecutive nodes of the plan (in placement order: the roles'
// instances in rank order, then the spares) that ask for the same shape.
struct Component {
  NodeShape shape;
  int nodes = 0;
  std::vector<std::string> roles;  // what runs there, for the script's comments
};

// The components of a plan, in placement order. A spare may replace any node, so spares ask
// for the largest of every field. Consecutive nodes of one shape share a component, so that
// the components' node lists, joined in order, list the nodes in placement order.
std::vector<Component> components_of(const Plan& plan) {
  std::vector<Component> out;
  const auto add = [&out](const NodeShape& shape, int nodes, const std::string& what) {
    if (nodes <= 0) return;
    if (out.empty() || !(out.back().shape == shape)) out.push_back(Component{shape, 0, {}});
    out.back().nodes += nodes;
    out.back().roles.push_back(what);
  };
  NodeShape largest;
  for (const Role& role : plan.roles) {
    const NodeShape shape = shape_of(role.resources);
    add(shape, role.instances, role.name);
    largest.gpus = std::max(largest.gpus, shape.gpus);
    largest.cpus = std::max(largest.cpus, shape.cpus);
    largest.mem_mib = std::max(largest.mem_mib, shape.mem_mib);
  }
  add(largest, static_cast<int>(plan.spares.size()), "spares");
  return out;
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

namespace {

// The #SBATCH options of one component: where its nodes come from, how many, and what each
// of them asks for. The spec's account, partition, QOS, reservation and segment are stated in
// every component, so that none depends on what sbatch carries over between them.
// `mem_before`: an earlier component states --mem, which sbatch carries over to the later
// components that do not state their own.
void component_options(std::string& out, const Plan& plan, const Component& c, bool mem_before) {
  const Slurm& slurm = plan.slurm;
  if (!slurm.partition.empty()) sbatch_option(out, "partition", slurm.partition);
  if (!slurm.account.empty()) sbatch_option(out, "account", slurm.account);
  if (!slurm.qos.empty()) sbatch_option(out, "qos", slurm.qos);
  if (!slurm.reservation.empty()) sbatch_option(out, "reservation", slurm.reservation);
  sbatch_option(out, "nodes", std::to_string(c.nodes));
  // topology/block (Slurm 24.05+): the nodes come in segments of this many, each within one
  // block (check_slurm_segment() holds the node counts to it).
  if (slurm.segment > 0) sbatch_option(out, "segment", std::to_string(slurm.segment));
  sbatch_option(out, "ntasks-per-node", "1");
  // Training owns its nodes: no other job's processes on its GPUs, NICs or memory. Not
  // propagated between the components of a heterogeneous job, so each states it.
  out += "#SBATCH --exclusive\n";
  if (c.shape.gpus > 0) sbatch_option(out, "gpus-per-node", std::to_string(c.shape.gpus));
  if (c.shape.cpus > 0) sbatch_option(out, "cpus-per-task", std::to_string(c.shape.cpus));
  if (c.shape.mem_mib > 0) {
    sbatch_option(out, "mem", std::to_string(c.shape.mem_mib));
  } else if (mem_before) {
    // No minimum: 0 asks for the node's memory, which an exclusive node gives anyway.
    sbatch_option(out, "mem", "0");
  }
}

// srun's --mpi: the spec's, else PMIx for an mpi job (its MPI library wires up through
// Slurm's PMIx server, which pyxis makes reachable inside the container), else none.
std::string mpi_plugin(const Plan& plan) {
  if (!plan.slurm.mpi.empty()) return plan.slurm.mpi;
  return plan.framework == Framework::Mpi ? "pmix" : "";
}

// srun's options for one component's tasks: one launcher per node. `container` is the pyxis
// options, stated in every component (pyxis takes the same value twice).
std::string srun_options(const Plan& plan, const Component& c, const std::string& container) {
  std::string out = "--ntasks-per-node=1 --kill-on-bad-exit=0";
  // Since Slurm 22.05 srun no longer inherits sbatch's --cpus-per-task, and a step
  // without it would confine each launcher and its training processes to one CPU.
  if (c.shape.cpus > 0) out += " --cpus-per-task=" + std::to_string(c.shape.cpus);
  if (const std::string mpi = mpi_plugin(plan); !mpi.empty()) out += " --mpi=" + mpi;
  if (!container.empty()) out += " \\\n  " + container;
  return out;
}

// The pyxis options of the step (NVIDIA pyxis' srun flags): pai-launch and the job run in
// the image, with the plan folder mounted at its own path, the spec's mounts and output at
// theirs, then the spec's container mounts. "$job_dir" is the script's variable.
std::string container_options(const Plan& plan) {
  const SlurmContainer& c = plan.slurm.container;
  if (c.image.empty()) return "";
  std::string mounts;
  for (const Mount& m : plan.mounts) {
    mounts += "," + m.source + ":" + m.target + (m.read_only ? ":ro" : "");
  }
  if (!plan.output.empty()) mounts += "," + plan.output + ":" + plan.output;
  for (const std::string& m : c.mounts) mounts += "," + m;
  // One line each for the image and the mounts, the rest on a third.
  std::string out = "--container-image=" + shell_quote(c.image) +
                    " \\\n  --container-mounts=\"$job_dir:$job_dir\"" +
                    (mounts.empty() ? "" : shell_quote(mounts));
  std::string rest;
  if (!c.workdir.empty()) rest += " --container-workdir=" + shell_quote(c.workdir);
  if (c.writable != Switch::Unset) {
    rest += c.writable == Switch::On ? " --container-writable" : " --container-readonly";
  }
  if (c.mount_home != Switch::Unset) {
    rest += c.mount_home == Switch::On ? " --container-mount-home" : " --no-container-mount-home";
  }
  if (!c.name.empty()) rest += " --container-name=" + shell_quote(c.name);
  if (!rest.empty()) out += " \\\n " + rest;
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

void check_for_slurm(const Plan& plan, const JobSpec& spec, Diagnostics& diags) {
  const int segment = plan.slurm.segment;
  if (segment <= 0) return;
  const std::vector<Component> components = components_of(plan);
  for (std::size_t i = 0; i < components.size(); ++i) {
    const Component& c = components[i];
    if (c.nodes % segment == 0) continue;
    const std::string what = components.size() > 1
                                 ? "component " + std::to_string(i) +
                                       " of the heterogeneous job (" + joined(c.roles) + ")"
                                 : "the job";
    diags.error(spec.where("slurm.segment"), "slurm.segment",
                "--target slurm: segment " + std::to_string(segment) + " does not divide the " +
                    std::to_string(c.nodes) + " nodes of " + what +
                    ": Slurm allocates whole segments");
  }
}

void use_container(Plan& plan) {
  if (plan.slurm.container.image.empty()) return;
  plan.runtime = Runtime::Host;
  for (Role& role : plan.roles) role.launch_argv = role.command;
}

std::string render_slurm_script(const Plan& plan, const std::string& out_dir) {
  const std::string dir = trimmed(out_dir);
  const bool absolute = !dir.empty() && dir.front() == '/';
  const std::vector<Component> components = components_of(plan);
  const bool heterogeneous = components.size() > 1;
  std::string out = "#!/bin/bash\n";
  sbatch_option(out, "job-name", plan.name);
  if (const std::int64_t deadline = scheduler_deadline_seconds(plan); deadline > 0) {
    sbatch_option(out, "time", slurm_time(deadline));
  }
  // Before the time limit (the spec's, or the partition's when it has none), SIGTERM to
  // every task of the job's steps, the launchers, which stop the job as a cancel, with time
  // for the checkpoint wait and the grace period. Not B: (the batch shell only): the shell
  // could pass it on only through srun, which answers SIGTERM by killing its tasks.
  sbatch_option(out, "signal",
                "TERM@" + std::to_string(std::min(stop_lead_seconds(plan), kMaxSignalLead)));
  // pai-launch restarts the job itself; a requeue would start it over as a new Slurm job.
  out += "#SBATCH --no-requeue\n";
  // sbatch resolves a relative path against the job's working directory, which is the
  // folder it was run from, as $SLURM_SUBMIT_DIR below. The folder exists: pai-compile
  // creates it, because slurmd does not and fails the job when it cannot open the file.
  sbatch_option(out, "output", dir + "/logs/slurm-%j.out");
  sbatch_option(out, "error", dir + "/logs/slurm-%j.out");
  bool mem_stated = false;
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (heterogeneous) {
      if (i > 0) out += "#SBATCH hetjob\n";
      out += "# component " + std::to_string(i) + ": " + joined(components[i].roles) + "\n";
    }
    component_options(out, plan, components[i], mem_stated);
    mem_stated = mem_stated || components[i].shape.mem_mib > 0;
  }
  out += kHeader;
  if (absolute) {
    out += "job_dir=${PAI_JOB_DIR:-" + shell_quote(dir) + "}\n";
  } else {
    out += "default_dir=\"${SLURM_SUBMIT_DIR:?submit this script with sbatch}\"/" +
           shell_quote(dir) + "\n";
    out += "job_dir=${PAI_JOB_DIR:-$default_dir}\n";
  }
  const std::string container = container_options(plan);
  if (!container.empty()) out += kContainerCheck;
  const bool chain = plan.slurm.requeue > 0;
  if (chain) out += replaced(kChainStart, "MAX_SUCCESSORS", std::to_string(plan.slurm.requeue));
  std::string launch =
      "\"$PAI_LAUNCH\" run --plan \"$job_dir/plan.json\" --token-file "
      "\"$job_dir/job.token\" --slurm";
  if (chain) launch += " --verdict-file \"$verdict_file\"";
  std::string srun = "srun " + srun_options(plan, components.front(), container);
  if (heterogeneous) {
    // In a step over several components Slurm gives every task all their nodes sorted by
    // name (SLURM_JOB_NODELIST), while the launchers place the job on the nodes in order:
    // instance i on node i. Each component's list, joined in the components' order, is
    // that order; the first node of component 0 is this batch host, the coordinator's.
    out += "\n# The nodes in placement order: the components' node lists, in order.\n";
    for (std::size_t i = 0; i < components.size(); ++i) {
      out += std::string(i ? "nodes+=," : "nodes=") + "${SLURM_JOB_NODELIST_HET_GROUP_" +
             std::to_string(i) + ":?not a heterogeneous job of " +
             std::to_string(components.size()) + " components}\n";
    }
    srun = "srun --het-group=0 " + srun_options(plan, components.front(), container);
    for (std::size_t i = 1; i < components.size(); ++i) {
      srun += " : \\\n  --het-group=" + std::to_string(i) + " " +
              srun_options(plan, components[i], container);
    }
    launch = "env SLURM_JOB_NODELIST=\"$nodes\" \\\n  " + launch;
  }
  const std::string accounting =
      replaced(kAccounting, "LEFT_AT_STOP",
               std::to_string(std::min(stop_lead_seconds(plan), kMaxSignalLead) + 120));
  const std::string end =
      chain ? replaced(kChainEnd, "VERDICTS", verdict_pattern()) : "status=$?\n";
  out += "\n" + srun + " \\\n  " + launch + "\n" + end + accounting;
  return out;
}

}  // namespace pai
