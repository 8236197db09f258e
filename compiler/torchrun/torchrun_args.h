// torchrun's command line (torch.distributed.run), read as the current torchrun reads it:
// both spellings of each flag (--nproc-per-node and --nproc_per_node), --flag=value and
// --flag value, a unique prefix of a flag, the PET_<FLAG> environment variables as defaults,
// and everything from the training script on passed to the script. pai's own flags are
// --print-spec and --pai-*. The values are checked for their form here; what they mean for
// the job is torchrun_spec.h's.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace pai {

/// A command line pai-launch torchrun cannot take. what() names the flag first:
/// "--max-restarts: expected an integer of at least 0, got \"x\"".
class TorchrunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// torchrun's command line, every flag with torchrun's default.
struct TorchrunArgs {
  int min_nodes = 1;  ///< --nnodes N or N:M
  int max_nodes = 1;
  std::string nproc_per_node = "1";  ///< a number, gpu, cpu or auto
  std::string rdzv_backend = "static";
  std::string rdzv_endpoint;  ///< "" = none (static: --master-addr:--master-port)
  std::string rdzv_id = "none";
  std::map<std::string, std::string> rdzv_conf;  ///< --rdzv-conf key=value,...
  bool standalone = false;
  int max_restarts = 0;
  double monitor_interval = 0.1;
  std::string role = "default";
  bool module = false;     ///< -m: the script is a module (python -m)
  bool no_python = false;  ///< --no-python: the script is executed as is
  bool run_path = false;   ///< --run-path
  std::optional<std::string> log_dir;
  std::string redirects = "0";  ///< torchrun's Std: 0-3, or local_rank:std,...
  std::string tee = "0";
  std::vector<int> local_ranks_filter;  ///< empty = every local rank
  std::optional<int> node_rank;         ///< --node-rank (or PET_NODE_RANK)
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;

  // pai's own flags.
  bool print_spec = false;                         ///< --print-spec
  int metrics_port = 0;                            ///< --pai-metrics-port; 0 = none
  int metrics_linger_seconds = -1;  ///< --pai-metrics-linger; -1 = the spec's default
  std::optional<std::vector<std::string>> checks;  ///< --pai-checks a,b | none
  std::string master_store;  ///< --pai-master-store rank0 | launcher; "" = the spec's default
  /// --pai-warm-start MODULE,...: the ranks start warm, these modules preloaded
  /// (docs/warm-starts.md)
  std::optional<std::vector<std::string>> warm_start;
  bool help = false;                               ///< -h, --help

  std::string training_script;
  std::vector<std::string> training_script_args;
  /// The flags given (their first long spelling, "--max-restarts"), on the command line or
  /// through PET_*.
  std::set<std::string> given;
};

/// Reads `argv` (the words after "torchrun") with `env` for the PET_* defaults. Throws
/// TorchrunError for an unknown or ambiguous flag, a missing or malformed value, a flag
/// torchrun has and pai cannot honour (--numa-binding, --logs-specs, --local-addr, an
/// --event-log-handler or --signals-to-handle other than the default), or a missing script.
TorchrunArgs parse_torchrun_args(const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env);

/// Which streams of local rank `local_rank` torchrun shows on the console: stdout unless
/// --redirects sends it to the file only (not --tee'd), the same for stderr, neither for a
/// rank --local-ranks-filter leaves out. first = stdout, second = stderr.
std::pair<bool, bool> console_streams(const TorchrunArgs& args, int local_rank);

/// The usage text of `pai-launch torchrun --help`.
std::string torchrun_usage();

}  // namespace pai
