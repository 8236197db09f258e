// The inventory of a job compiled with `pai-compile --target slurm` (plan.inventory slurm):
// the nodes of the Slurm allocation, read from the environment srun gives each task.
//
// Every launcher of the job reads the same allocation and places the job on it with the
// same function as the compiler (pai::place), so all of them, the coordinator's included,
// agree on ranks, ports and MASTER_ADDR without exchanging anything.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "libpai/plan.h"

namespace pai::launcher {

/// The most hosts one hostlist expression may expand to: far beyond any cluster, so that a
/// malformed "node[0-999999999]" is an error rather than an exhausted memory.
inline constexpr std::size_t kMaxHostlistHosts = 1 << 20;

/// The host names of a Slurm hostlist expression, in order: comma-separated items, each a
/// name with any number of bracketed range lists, e.g. "node[1-3,5],gpu-[001-004],login" or
/// "rack[1-2]-n[1-2]" (rack1-n1, rack1-n2, rack2-n1, rack2-n2). A range keeps the width of
/// its lower bound ("[001-004]" -> 001..004; "[8-10]" -> 8, 9, 10). Throws
/// std::invalid_argument naming the expression and the problem: empty expression or item,
/// unbalanced brackets, a bound that is not a number, a range whose end is below its start,
/// or more than kMaxHostlistHosts names.
std::vector<std::string> expand_hostlist(std::string_view expression);

/// The allocation as one task of `srun` sees it.
struct SlurmAllocation {
  std::string job_id;              ///< SLURM_JOB_ID
  std::vector<std::string> nodes;  ///< SLURM_JOB_NODELIST (or SLURM_NODELIST), expanded
  int node_id = 0;                 ///< SLURM_NODEID: this node's index among `nodes`
  std::string node_name;           ///< SLURMD_NODENAME: this node's name in `nodes`
  /// SLURM_LAUNCH_NODE_IPADDR: the address of the node srun was started from. Under the
  /// job's sbatch script that is the batch host, the first node of the allocation, where
  /// the coordinator runs.
  std::string launch_address;
};

/// Reads the allocation from `env` (the process environment as name -> value). Throws
/// std::invalid_argument naming the variable when one is missing or empty, when
/// SLURM_NODEID is not an index of the node list, when SLURMD_NODENAME is not in it, or
/// (from expand_hostlist) when the node list cannot be expanded.
SlurmAllocation read_slurm_allocation(const std::map<std::string, std::string>& env);

/// Puts a plan compiled for Slurm on the allocation: the first `plan.nodes` nodes become
/// the hosts (in order, so instance i runs on node i), the others spares; a node's address
/// is its name, except the first node's, which is `launch_address` (the coordinator's and,
/// with the master role's instance 0 there, MASTER_ADDR's). Then places the job again with
/// pai::place; the coordinator runs on the first node (a coordinator host in the plan is
/// dropped), and ports are those the compiler placed, since they depend only on the number
/// and order of distinct hosts. The plan's inventory is static afterwards.
/// Throws std::invalid_argument when the plan's inventory is not slurm, or when the
/// allocation has fewer nodes than the job has instances (naming both counts).
void apply_slurm_allocation(Plan& plan, const SlurmAllocation& allocation);

}  // namespace pai::launcher
