#include "compiler/torchrun/torchrun_args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace pai {
namespace {

enum class Kind { Value, Flag };

// One flag of torchrun's parser: its spellings (the first names it in messages and in
// TorchrunArgs::given), whether it takes a value, and the PET_* variable that gives its
// default ("" for none).
struct Flag {
  std::vector<std::string> names;
  Kind kind;
  std::string env;
};

// torch/distributed/run.py's get_args_parser(), in its order, and pai's own flags.
const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {{"--nnodes"}, Kind::Value, "PET_NNODES"},
      {{"--nproc-per-node", "--nproc_per_node"}, Kind::Value, "PET_NPROC_PER_NODE"},
      {{"--rdzv-backend", "--rdzv_backend"}, Kind::Value, "PET_RDZV_BACKEND"},
      {{"--rdzv-endpoint", "--rdzv_endpoint"}, Kind::Value, "PET_RDZV_ENDPOINT"},
      {{"--rdzv-id", "--rdzv_id"}, Kind::Value, "PET_RDZV_ID"},
      {{"--rdzv-conf", "--rdzv_conf"}, Kind::Value, "PET_RDZV_CONF"},
      {{"--standalone"}, Kind::Flag, "PET_STANDALONE"},
      {{"--max-restarts", "--max_restarts"}, Kind::Value, "PET_MAX_RESTARTS"},
      {{"--monitor-interval", "--monitor_interval"}, Kind::Value, "PET_MONITOR_INTERVAL"},
      {{"--start-method", "--start_method"}, Kind::Value, "PET_START_METHOD"},
      {{"--event-log-handler", "--event_log_handler"}, Kind::Value, "PET_EVENT_LOG_HANDLER"},
      {{"--role"}, Kind::Value, "PET_ROLE"},
      {{"--module", "-m"}, Kind::Flag, "PET_MODULE"},
      {{"--no-python", "--no_python"}, Kind::Flag, "PET_NO_PYTHON"},
      {{"--run-path", "--run_path"}, Kind::Flag, "PET_RUN_PATH"},
      {{"--log-dir", "--log_dir"}, Kind::Value, "PET_LOG_DIR"},
      {{"--redirects", "-r"}, Kind::Value, "PET_REDIRECTS"},
      {{"--tee", "-t"}, Kind::Value, "PET_TEE"},
      {{"--local-ranks-filter", "--local_ranks_filter"}, Kind::Value, "PET_LOCAL_RANKS_FILTER"},
      {{"--node-rank", "--node_rank"}, Kind::Value, "PET_NODE_RANK"},
      {{"--master-addr", "--master_addr"}, Kind::Value, "PET_MASTER_ADDR"},
      {{"--master-port", "--master_port"}, Kind::Value, "PET_MASTER_PORT"},
      {{"--local-addr", "--local_addr"}, Kind::Value, "PET_LOCAL_ADDR"},
      {{"--logs-specs", "--logs_specs"}, Kind::Value, ""},
      {{"--numa-binding", "--numa_binding"}, Kind::Value, ""},
      {{"--signals-to-handle", "--signals_to_handle"}, Kind::Value, "PET_SIGNALS_TO_HANDLE"},
      {{"--print-spec"}, Kind::Flag, ""},
      {{"--pai-metrics-port"}, Kind::Value, ""},
      {{"--pai-metrics-linger"}, Kind::Value, ""},
      {{"--pai-checks"}, Kind::Value, ""},
      {{"--pai-master-store"}, Kind::Value, ""},
      {{"--pai-warm-start"}, Kind::Value, ""},
      {{"--help", "-h"}, Kind::Flag, ""},
  };
  return table;
}

[[noreturn]] void fail(const std::string& flag, const std::string& message) {
  throw TorchrunError(flag + ": " + message);
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// The flag `word` ("--nproc", "--max_restarts") names: exactly, or as the unique prefix of
// one flag's spellings (argparse's abbreviations).
const Flag& find_flag(const std::string& word) {
  const Flag* found = nullptr;
  std::vector<std::string> candidates;
  for (const Flag& flag : flags()) {
    for (const std::string& name : flag.names) {
      if (name == word) return flag;
    }
  }
  if (word.rfind("--", 0) == 0 && word.size() > 2) {
    for (const Flag& flag : flags()) {
      for (const std::string& name : flag.names) {
        if (name.rfind(word, 0) == 0) {
          if (found != &flag) candidates.push_back(name);
          found = &flag;
          break;
        }
      }
    }
  }
  if (candidates.size() == 1) return *found;
  if (candidates.empty()) {
    fail(word, "not a flag of torchrun (pai-launch torchrun --help lists them)");
  }
  std::string list;
  for (const std::string& c : candidates) list += (list.empty() ? "" : ", ") + c;
  fail(word, "ambiguous: it could be " + list);
}

int to_int(const std::string& flag, const std::string& text, int min) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < min || value > 2147483647L) {
    fail(flag, "expected an integer of at least " + std::to_string(min) + ", got " + quoted(text));
  }
  return static_cast<int>(value);
}

// PET_* flags: "1" or "0" (torch.distributed.argparse_util.check_env), else true/false.
bool to_bool(const std::string& flag, const std::string& text) {
  if (text == "1" || text == "true" || text == "True") return true;
  if (text == "0" || text == "false" || text == "False" || text.empty()) return false;
  fail(flag, "expected 1 or 0, got " + quoted(text));
}

// torchrun's Std: "0".."3", or "local_rank:std,..." (torch.distributed.elastic's Std.from_str).
void check_std(const std::string& flag, const std::string& text) {
  const auto digit = [](char c, char max) { return c >= '0' && c <= max; };
  if (text.size() == 1 && digit(text[0], '3')) return;
  std::size_t at = 0;
  bool ok = !text.empty();
  while (ok && at < text.size()) {
    ok = at + 3 <= text.size() && digit(text[at], '9') && text[at + 1] == ':' &&
         digit(text[at + 2], '3') && (at + 3 == text.size() || text[at + 3] == ',');
    at += 4;
  }
  if (!ok || text.back() == ',') {
    fail(flag,
         "expected 0 (none), 1 (stdout), 2 (stderr), 3 (both) or LOCAL_RANK:N,... as "
         "torchrun takes it, got " +
             quoted(text));
  }
}

// The Std value of `local_rank` in a checked `spec`.
int std_of(const std::string& spec, int local_rank) {
  if (spec.size() == 1) return spec[0] - '0';
  for (std::size_t at = 0; at + 2 < spec.size(); at += 4) {
    if (spec[at] - '0' == local_rank) return spec[at + 2] - '0';
  }
  return 0;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

void set_nnodes(TorchrunArgs& args, const std::string& flag, const std::string& text) {
  const std::vector<std::string> parts = split(text, ':');
  if (parts.size() > 2) fail(flag, "expected N or MIN:MAX, got " + quoted(text));
  args.min_nodes = to_int(flag, parts[0], 1);
  args.max_nodes = parts.size() == 2 ? to_int(flag, parts[1], 1) : args.min_nodes;
  if (args.max_nodes < args.min_nodes) {
    fail(flag, "MIN:MAX with MAX " + std::to_string(args.max_nodes) + " below MIN " +
                   std::to_string(args.min_nodes));
  }
}

void set_rdzv_conf(TorchrunArgs& args, const std::string& flag, const std::string& text) {
  if (text.empty()) return;
  for (const std::string& item : split(text, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail(flag, "expected KEY=VALUE,..., got " + quoted(item));
    }
    args.rdzv_conf[item.substr(0, eq)] = item.substr(eq + 1);
  }
}

void set_local_ranks_filter(TorchrunArgs& args, const std::string& flag, const std::string& text) {
  args.local_ranks_filter.clear();
  if (text.empty()) return;
  for (const std::string& item : split(text, ',')) {
    args.local_ranks_filter.push_back(to_int(flag, item, 0));
  }
}

// Flags torchrun has that pai-launch torchrun refuses, unless at their default: why not.
void refuse(const std::string& flag, const std::string& value) {
  if (flag == "--numa-binding") {
    fail(flag,
         "not supported: pai does not bind ranks to NUMA nodes (bind them in the "
         "script, e.g. with os.sched_setaffinity)");
  }
  if (flag == "--logs-specs") {
    fail(flag,
         "not supported: pai keeps every rank's output in its log folder "
         "(--log-dir); torchrun.logs_specs plugins are Python and do not apply");
  }
  if (flag == "--local-addr") {
    fail(flag, "not supported: the coordinator takes a node's address from its connection");
  }
  if (flag == "--event-log-handler" && value != "null") {
    fail(flag,
         "only null is supported: pai writes its events to events.jsonl in the log "
         "folder (docs/launch.md)");
  }
  if (flag == "--signals-to-handle" && value != "SIGTERM,SIGINT,SIGHUP,SIGQUIT") {
    fail(flag,
         "only the default SIGTERM,SIGINT,SIGHUP,SIGQUIT is supported: pai stops the "
         "job on SIGTERM and SIGINT and forwards nothing else");
  }
}

void set(TorchrunArgs& args, const Flag& flag, const std::string& value) {
  const std::string& name = flag.names.front();
  args.given.insert(name);
  refuse(name, value);
  if (name == "--nnodes") return set_nnodes(args, name, value);
  if (name == "--nproc-per-node") {
    if (value != "gpu" && value != "cpu" && value != "auto") to_int(name, value, 1);
    args.nproc_per_node = value;
  } else if (name == "--rdzv-backend") {
    args.rdzv_backend = value;
  } else if (name == "--rdzv-endpoint") {
    args.rdzv_endpoint = value;
  } else if (name == "--rdzv-id") {
    args.rdzv_id = value;
  } else if (name == "--rdzv-conf") {
    set_rdzv_conf(args, name, value);
  } else if (name == "--max-restarts") {
    args.max_restarts = to_int(name, value, 0);
  } else if (name == "--monitor-interval") {
    char* end = nullptr;
    args.monitor_interval = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(args.monitor_interval) ||
        args.monitor_interval <= 0) {
      fail(name, "expected a number of seconds greater than 0, got " + quoted(value));
    }
  } else if (name == "--start-method") {
    // A script's workers are always new processes: the method only mattered to functions.
    if (value != "spawn" && value != "fork" && value != "forkserver") {
      fail(name, "expected spawn, fork or forkserver, got " + quoted(value));
    }
  } else if (name == "--role") {
    args.role = value;
  } else if (name == "--log-dir") {
    args.log_dir = value;
  } else if (name == "--redirects") {
    check_std(name, value);
    args.redirects = value;
  } else if (name == "--tee") {
    check_std(name, value);
    args.tee = value;
  } else if (name == "--local-ranks-filter") {
    set_local_ranks_filter(args, name, value);
  } else if (name == "--node-rank") {
    args.node_rank = to_int(name, value, 0);
  } else if (name == "--master-addr") {
    args.master_addr = value;
  } else if (name == "--master-port") {
    args.master_port = to_int(name, value, 0);
  } else if (name == "--pai-metrics-port") {
    args.metrics_port = to_int(name, value, 1);
    if (args.metrics_port > 65535) fail(name, "expected a port from 1 to 65535");
  } else if (name == "--pai-metrics-linger") {
    args.metrics_linger_seconds = to_int(name, value, 0);
    if (args.metrics_linger_seconds > 600) fail(name, "expected 0 to 600 seconds");
  } else if (name == "--pai-checks") {
    args.checks = value == "none" ? std::vector<std::string>{} : split(value, ',');
  } else if (name == "--pai-master-store") {
    if (value != "rank0" && value != "launcher") fail(name, "expected rank0 or launcher");
    args.master_store = value;
  } else if (name == "--pai-warm-start") {
    args.warm_start = value.empty() ? std::vector<std::string>{} : split(value, ',');
  }
}

void set_flag(TorchrunArgs& args, const std::string& name, bool on) {
  if (on) args.given.insert(name);
  if (name == "--standalone") args.standalone = on;
  if (name == "--module") args.module = on;
  if (name == "--no-python") args.no_python = on;
  if (name == "--run-path") args.run_path = on;
  if (name == "--print-spec") args.print_spec = on;
  if (name == "--help") args.help = on;
}

}  // namespace

TorchrunArgs parse_torchrun_args(const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env) {
  TorchrunArgs args;
  // Defaults from PET_*, as torch.distributed.argparse_util's env and check_env actions.
  for (const Flag& flag : flags()) {
    if (flag.env.empty()) continue;
    const auto it = env.find(flag.env);
    if (it == env.end()) continue;
    const std::string where = flag.names.front() + " (from " + flag.env + ")";
    try {
      if (flag.kind == Kind::Flag) {
        set_flag(args, flag.names.front(), to_bool(flag.names.front(), it->second));
      } else {
        set(args, flag, it->second);
      }
    } catch (const TorchrunError& e) {
      throw TorchrunError(where + std::string(e.what()).substr(flag.names.front().size()));
    }
  }
  std::size_t i = 0;
  for (; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (word == "--") {
      ++i;
      break;
    }
    if (word.size() < 2 || word[0] != '-') break;
    std::string name = word;
    std::optional<std::string> inline_value;
    if (word.rfind("--", 0) == 0) {
      if (const std::size_t eq = word.find('='); eq != std::string::npos) {
        name = word.substr(0, eq);
        inline_value = word.substr(eq + 1);
      }
    } else if (word.size() > 2) {
      // "-r3": a short flag with its value attached.
      name = word.substr(0, 2);
      inline_value = word.substr(2);
    }
    const Flag& flag = find_flag(name);
    if (flag.kind == Kind::Flag) {
      if (inline_value) fail(flag.names.front(), "takes no value, got " + quoted(*inline_value));
      set_flag(args, flag.names.front(), true);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argv.size()) fail(flag.names.front(), "expected a value");
      inline_value = argv[++i];
    }
    set(args, flag, *inline_value);
  }
  if (args.help) return args;
  if (i >= argv.size()) {
    throw TorchrunError(
        "the training script is missing: pai-launch torchrun [OPTIONS] SCRIPT [ARGS...]");
  }
  args.training_script = argv[i];
  args.training_script_args.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
  if (args.module && args.no_python) {
    // torchrun's own refusal (run.py's config_from_args).
    fail("--no-python", "cannot be used with --module (-m)");
  }
  return args;
}

std::pair<bool, bool> console_streams(const TorchrunArgs& args, int local_rank) {
  const auto& filter = args.local_ranks_filter;
  if (!filter.empty() && std::find(filter.begin(), filter.end(), local_rank) == filter.end()) {
    return {false, false};
  }
  const int redirected = std_of(args.redirects, local_rank);
  const int teed = std_of(args.tee, local_rank);
  // Std: 1 stdout, 2 stderr, 3 both. A stream redirected to the file alone leaves the
  // console; a tee'd one goes to both.
  const auto shown = [&](int bit) { return !(redirected & bit) || (teed & bit) != 0; };
  return {shown(1), shown(2)};
}

std::string torchrun_usage() {
  return "usage: pai-launch torchrun [torchrun's options] SCRIPT [ARGS...]\n"
         "       (or a link named torchrun to pai-launch)\n"
         "\n"
         "Runs SCRIPT as torchrun does, with pai's restarts, hang detection, diagnosis,\n"
         "journal and report (docs/torchrun.md).\n"
         "\n"
         "torchrun's options (both spellings, --flag=value or --flag value, PET_* defaults):\n"
         "  --nnodes N|MIN:MAX  --nproc-per-node N|gpu|cpu|auto  --node-rank N\n"
         "  --rdzv-backend c10d|static  --rdzv-endpoint HOST[:PORT]  --rdzv-id ID\n"
         "  --rdzv-conf KEY=VALUE,...  --standalone  --master-addr A  --master-port P\n"
         "  --max-restarts N  --monitor-interval S  --start-method M  --role NAME\n"
         "  --log-dir DIR  -r/--redirects STD  -t/--tee STD  --local-ranks-filter R,...\n"
         "  -m/--module  --no-python  --run-path\n"
         "pai's options:\n"
         "  --print-spec           write the equivalent job spec (YAML) and exit\n"
         "  --pai-metrics-port P   serve Prometheus metrics on port P (docs/metrics.md)\n"
         "  --pai-metrics-linger S after the job, serve its final metrics S seconds at most\n"
         "                         (default 30; 0 = not at all)\n"
         "  --pai-checks LIST      sanity checks before each start (default gpu,network;\n"
         "                         none for none; docs/checks.md)\n"
         "  --pai-master-store S   who serves the ranks' store on MASTER_PORT: rank0 (default)\n"
         "                         or launcher (no rank waits for rank 0's; docs/launch.md)\n"
         "  --pai-warm-start MODS  restarts fork each rank from an interpreter that imported\n"
         "                         MODS (comma-separated, e.g. torch; docs/warm-starts.md)\n"
         "The job token of a multi-node job: PAI_JOB_TOKEN, or --rdzv-conf token_file=FILE.\n";
}

}  // namespace pai
