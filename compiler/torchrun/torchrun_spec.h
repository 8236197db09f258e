// torchrun's command line made into a pai job (docs/torchrun.md): the equivalent pai/v1 spec,
// as a document whose locations name the flags each field came from, then the plan the
// compiler makes of it (parse, rules, planner), as pai-compile would.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "compiler/document/diagnostics.h"
#include "compiler/document/document.h"
#include "compiler/torchrun/torchrun_args.h"
#include "libpai/plan.h"

namespace pai {

/// What the spec needs to know of the node it is made on.
struct TorchrunFacts {
  int gpus = 0;  ///< CUDA GPUs this process may use (--nproc-per-node gpu, auto)
  int cpus = 1;  ///< online CPUs (--nproc-per-node cpu, auto)
  /// The interpreter of a Python script, as torchrun runs its own (sys.executable) unless
  /// PYTHON_EXEC says otherwise: PYTHON_EXEC, else the interpreter of the torchrun this
  /// command stands for, else python3 (looked up on PATH when the ranks start).
  std::string python = "python3";
  /// A free port of this machine, for --standalone and an endpoint of port 0.
  std::function<int()> free_port;
  /// A new random run id (a UUID), for --standalone.
  std::function<std::string()> new_run_id;
};

/// The job a torchrun command line describes.
struct TorchrunJob {
  /// The equivalent spec. Each node's location names the flag it comes from ("--nnodes",
  /// "--role"), so the compiler's diagnostics point at the command line.
  Document spec;
  std::string name;           ///< the job's name: --rdzv-id, made a DNS label
  std::string endpoint_host;  ///< the rendezvous endpoint: where the coordinator listens
  int endpoint_port = 0;
  /// More than one node, or spares: the job runs with a coordinator and needs a token.
  bool multi_node = false;
  /// This node's rank when the command line says it (--node-rank; 0 for a one-node job).
  std::optional<int> node_rank;
  /// --rdzv-conf is_host: whether this node hosts the rendezvous (unset: the node whose
  /// address the endpoint is, the first to listen there).
  std::optional<bool> is_host;
  /// --rdzv-conf join_timeout (torchrun's default 600 s): how long to wait for every node.
  std::chrono::seconds join_timeout{600};
  std::string token_file;  ///< --rdzv-conf token_file; "" = none
  /// The words the ranks run: python3 -u SCRIPT ARGS..., python3 -u -m MODULE ..., SCRIPT
  /// ... with --no-python.
  std::vector<std::string> command;
  int nproc_per_node = 1;
  /// What changed from the command line, for the user ("--rdzv-id job_1 is not a DNS
  /// label: the job is named job-1").
  std::vector<std::string> notes;
};

/// The job `args` describe on a node with `facts`. Throws TorchrunError for what pai cannot
/// run as asked: an etcd rendezvous, --standalone with several nodes, --nnodes MIN:MAX with
/// the static rendezvous, a node rank outside --nnodes, no GPU for --nproc-per-node gpu, an
/// --rdzv-conf key pai does not know.
TorchrunJob torchrun_job(const TorchrunArgs& args, const TorchrunFacts& facts);

/// The plan of `job`: its spec parsed and checked, then planned, as pai-compile does. Every
/// problem goes to `diags` (located at the flags); check diags.has_errors().
Plan torchrun_plan(const TorchrunJob& job, Diagnostics& diags);

/// `job`'s spec as the YAML text of a spec file, with a comment saying where it came from
/// and what to fill in before pai-compile takes it (the nodes' addresses).
std::string torchrun_spec_yaml(const TorchrunJob& job, const std::string& command_line);

}  // namespace pai
