#include "compiler/torchrun/torchrun_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "compiler/document/document_yaml.h"
#include "compiler/plan/planner.h"
#include "compiler/spec/spec_parser.h"
#include "compiler/spec/spec_rules.h"

namespace pai {
namespace {

// ---- Building the spec's document, each node located at the flag it comes from ----

Node scalar(std::string text, bool quoted, const std::string& flag) {
  Node node;
  node.kind = Node::Kind::Scalar;
  node.scalar = std::move(text);
  node.quoted = quoted;
  node.loc = Location{flag, 0, 0};
  return node;
}
Node text(std::string value, const std::string& flag) {
  return scalar(std::move(value), true, flag);
}
Node number(long value, const std::string& flag) {
  return scalar(std::to_string(value), false, flag);
}
Node boolean(bool value, const std::string& flag) {
  return scalar(value ? "true" : "false", false, flag);
}

using Entries = std::vector<std::pair<std::string, Node>>;

Node mapping(Entries entries, const std::string& flag) {
  Node node;
  node.kind = Node::Kind::Mapping;
  node.loc = Location{flag, 0, 0};
  for (auto& [key, value] : entries) node.entries.emplace_back(text(key, flag), std::move(value));
  return node;
}

Node sequence(std::vector<Node> items, const std::string& flag) {
  Node node;
  node.kind = Node::Kind::Sequence;
  node.loc = Location{flag, 0, 0};
  node.items = std::move(items);
  return node;
}

Node words(const std::vector<std::string>& values, const std::string& flag) {
  std::vector<Node> items;
  for (const std::string& v : values) items.push_back(text(v, flag));
  return sequence(std::move(items), flag);
}

// ---- What the flags mean ----

[[noreturn]] void fail(const std::string& flag, const std::string& message) {
  throw TorchrunError(flag + ": " + message);
}

// "host", "host:port", "[v6]", "[v6]:port"; the port is `default_port` when not written.
std::pair<std::string, int> split_endpoint(const std::string& flag, const std::string& endpoint,
                                           int default_port) {
  std::string host = endpoint;
  std::string port;
  if (!endpoint.empty() && endpoint.front() == '[') {
    const std::size_t close = endpoint.find(']');
    if (close == std::string::npos) fail(flag, "an IPv6 address lacks its ']': " + endpoint);
    host = endpoint.substr(1, close - 1);
    if (close + 1 < endpoint.size()) {
      if (endpoint[close + 1] != ':') fail(flag, "expected [ADDRESS]:PORT, got " + endpoint);
      port = endpoint.substr(close + 2);
    }
  } else if (const std::size_t colon = endpoint.rfind(':'); colon != std::string::npos) {
    if (endpoint.find(':') != colon) {
      fail(flag, "write an IPv6 address in brackets, [ADDRESS]:PORT, got " + endpoint);
    }
    host = endpoint.substr(0, colon);
    port = endpoint.substr(colon + 1);
  }
  if (host.empty()) fail(flag, "expected HOST[:PORT], got \"" + endpoint + "\"");
  if (port.empty()) return {host, default_port};
  char* end = nullptr;
  const long value = std::strtol(port.c_str(), &end, 10);
  if (*end != '\0' || value < 0 || value > 65535) {
    fail(flag, "expected a port from 0 to 65535, got \"" + port + "\"");
  }
  return {host, static_cast<int>(value)};
}

// --rdzv-id as a job name: a DNS label of at most 40 characters (the job's pods append
// "-<role>-<index>").
std::string job_name(const std::string& run_id) {
  std::string name;
  for (char c : run_id) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool ok = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (ok) {
      name += lower;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  if (name.size() > 40) name.resize(40);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name.empty() ? "torchrun" : name;
}

bool conf_bool(const std::string& key, const std::string& value) {
  std::string lower;
  for (char c : value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "1" || lower == "true" || lower == "yes") return true;
  if (lower == "0" || lower == "false" || lower == "no") return false;
  fail("--rdzv-conf", key + ": expected true or false, got \"" + value + "\"");
}

// --rdzv-conf: the keys pai takes, the ones of torch's stores that mean nothing here, and an
// error for the rest.
void read_rdzv_conf(const TorchrunArgs& args, TorchrunJob& job) {
  static const std::vector<std::string> kNoEffect = {
      "last_call_timeout", "close_timeout",       "read_timeout",           "timeout",
      "use_libuv",         "keep_alive_interval", "keep_alive_max_attempt", "store_type"};
  for (const auto& [key, value] : args.rdzv_conf) {
    if (key == "token_file") {
      job.token_file = value;
    } else if (key == "join_timeout") {
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds >= 1) || seconds > 86400 * 365.0) {
        fail("--rdzv-conf", "join_timeout: expected seconds, at least 1, got \"" + value + "\"");
      }
      job.join_timeout = std::chrono::seconds(static_cast<long>(std::ceil(seconds)));
    } else if (key == "is_host") {
      job.is_host = conf_bool(key, value);
    } else if (std::find(kNoEffect.begin(), kNoEffect.end(), key) == kNoEffect.end()) {
      fail("--rdzv-conf", key +
                              " is not supported (pai takes token_file, join_timeout and "
                              "is_host; the settings of torch's TCPStore have no effect)");
    }
  }
}

// The rendezvous: where the coordinator listens, the job's name, this node's rank.
void read_rendezvous(const TorchrunArgs& args, const TorchrunFacts& facts, TorchrunJob& job) {
  std::string backend = args.rdzv_backend;
  std::string endpoint = args.rdzv_endpoint;
  std::string run_id = args.rdzv_id;
  if (args.standalone) {
    // torchrun's --standalone: a c10d rendezvous on a free local port, a new run id.
    if (args.max_nodes > 1) {
      fail("--standalone", "runs one node, but --nnodes asks for " +
                               std::to_string(args.max_nodes) +
                               ": give the nodes --rdzv-backend c10d --rdzv-endpoint HOST:PORT");
    }
    backend = "c10d";
    endpoint = "localhost:0";
    run_id = facts.new_run_id ? facts.new_run_id() : "standalone";
  }
  if (backend == "static") {
    if (args.min_nodes != args.max_nodes) {
      fail("--nnodes",
           "MIN:MAX needs --rdzv-backend c10d: the static rendezvous has a fixed "
           "number of nodes");
    }
    if (endpoint.empty()) endpoint = args.master_addr + ":" + std::to_string(args.master_port);
    job.node_rank = args.node_rank.value_or(0);
  } else if (backend == "c10d") {
    if (endpoint.empty()) {
      if (args.max_nodes > 1) {
        fail("--rdzv-endpoint",
             "is required with --rdzv-backend c10d: the HOST:PORT of one of "
             "the nodes, where pai's coordinator listens");
      }
      endpoint = "localhost:0";
    }
    job.node_rank = args.node_rank;
  } else {
    fail("--rdzv-backend", "\"" + backend +
                               "\" is not supported: pai-launch torchrun runs its "
                               "own rendezvous; use c10d (or static) with the "
                               "HOST:PORT of one of the nodes as --rdzv-endpoint");
  }
  const auto [host, port] = split_endpoint("--rdzv-endpoint", endpoint, 29400);
  job.endpoint_host = host;
  job.endpoint_port = port;
  if (job.endpoint_port == 0) {
    if (args.max_nodes > 1) {
      fail("--rdzv-endpoint",
           "port 0 (any free port) works for one node only: the other "
           "nodes must know the port");
    }
    // A free port whose range (the coordinator's port, MASTER_PORT and the 100 after: the
    // plan's portRange below) leaves out the port asked for the metrics: a free port the
    // kernel just gave the metrics' user may come back here.
    for (int tries = 0; tries < 16; ++tries) {
      job.endpoint_port = facts.free_port ? facts.free_port() : 29400;
      if (args.metrics_port < job.endpoint_port || args.metrics_port > job.endpoint_port + 100) {
        break;
      }
    }
  }
  if (job.endpoint_port < 1024 || job.endpoint_port > 65534) {
    fail("--rdzv-endpoint", "port " + std::to_string(job.endpoint_port) +
                                " is outside 1024-65534 (pai's coordinator listens on it and "
                                "MASTER_PORT is the next one)");
  }
  job.name = job_name(run_id);
  if (job.name != run_id) {
    job.notes.push_back("--rdzv-id " + run_id + " is not a DNS label: the job is named " +
                        job.name + " (TORCHELASTIC_RUN_ID=" + job.name + ")");
  }
  if (job.node_rank && *job.node_rank >= args.max_nodes) {
    fail("--node-rank", std::to_string(*job.node_rank) + " is not below --nnodes " +
                            std::to_string(args.max_nodes));
  }
}

// --nproc-per-node: a number, or what torchrun counts for gpu, cpu and auto.
int processes_per_node(const TorchrunArgs& args, const TorchrunFacts& facts) {
  const std::string& nproc = args.nproc_per_node;
  if (nproc == "gpu" || (nproc == "auto" && facts.gpus > 0)) {
    if (facts.gpus == 0) {
      fail("--nproc-per-node",
           "gpu: no CUDA GPU is visible here (CUDA_VISIBLE_DEVICES, "
           "/proc/driver/nvidia/gpus)");
    }
    return facts.gpus;
  }
  if (nproc == "cpu" || nproc == "auto") return std::max(1, facts.cpus);
  return std::atoi(nproc.c_str());
}

// What each rank runs: torchrun's `python -u SCRIPT`, `python -u -m MODULE`, or the script
// itself with --no-python. --run-path runs the script as `python -u` does.
std::vector<std::string> rank_command(const TorchrunArgs& args, const TorchrunFacts& facts) {
  std::vector<std::string> argv;
  if (args.no_python && !args.run_path) {
    argv.push_back(args.training_script);
  } else {
    argv = {facts.python, "-u"};
    if (args.module) argv.push_back("-m");
    argv.push_back(args.training_script);
  }
  argv.insert(argv.end(), args.training_script_args.begin(), args.training_script_args.end());
  return argv;
}

Node hosts_node(const TorchrunJob& job, int count) {
  std::vector<Node> hosts;
  for (int i = 0; i < count; ++i) {
    const std::string name = "node-" + std::to_string(i);
    // The first node is the rendezvous endpoint's host; the others' addresses are learnt
    // when they join.
    hosts.push_back(mapping({{"name", text(name, "--nnodes")},
                             {"address", text(i == 0 ? job.endpoint_host : name,
                                              i == 0 ? "--rdzv-endpoint" : "--nnodes")}},
                            "--nnodes"));
  }
  return sequence(std::move(hosts), "--nnodes");
}

Node spares_node(int count) {
  std::vector<Node> spares;
  for (int i = 0; i < count; ++i) spares.push_back(text("spare-" + std::to_string(i), "--nnodes"));
  return sequence(std::move(spares), "--nnodes");
}

Node role_node(const TorchrunArgs& args, const TorchrunFacts& facts, const TorchrunJob& job) {
  Entries role = {{"instances", number(args.min_nodes, "--nnodes")},
                  {"nprocPerNode", number(job.nproc_per_node, "--nproc-per-node")},
                  {"envConvention", text("torchrun", "--nproc-per-node")}};
  // The GPUs the ranks use: the node's, when there is one for each rank.
  if (facts.gpus > 0 && job.nproc_per_node <= facts.gpus && args.nproc_per_node != "cpu") {
    role.emplace_back("resources", mapping({{"gpu", number(facts.gpus, "--nproc-per-node")}},
                                           "--nproc-per-node"));
  }
  role.emplace_back("command", words(job.command, "the training script"));
  return mapping(std::move(role), "--role");
}

Node spec_root(const TorchrunArgs& args, const TorchrunFacts& facts, const TorchrunJob& job) {
  Entries root = {{"apiVersion", text("pai/v1", "torchrun")},
                  {"kind", text("Job", "torchrun")},
                  {"name", text(job.name, "--rdzv-id")},
                  {"framework", text("pytorch", "torchrun")},
                  {"hosts", hosts_node(job, args.min_nodes)}};
  if (args.max_nodes > args.min_nodes) {
    root.emplace_back("spares", spares_node(args.max_nodes - args.min_nodes));
  }
  // The coordinator listens on the endpoint and MASTER_PORT is the next port (torchrun's
  // c10d picks a free one). A node alone has no coordinator to listen (unless it serves
  // metrics): MASTER_PORT is the endpoint's port itself, as torchrun's static rendezvous
  // gives --master-port, and the coordinator's port, reserved on paper, the next one.
  const bool coordinator_listens = job.multi_node || args.metrics_port != 0;
  const int p = job.endpoint_port;
  root.emplace_back("coordinator",
                    mapping({{"host", text("node-0", "--rdzv-endpoint")},
                             {"port", number(coordinator_listens ? p : p + 1, "--rdzv-endpoint")}},
                            "--rdzv-endpoint"));
  root.emplace_back("portRange",
                    mapping({{"min", number(coordinator_listens ? p + 1 : p, "--rdzv-endpoint")},
                             {"max", number(std::min(p + 100, 65535), "--rdzv-endpoint")}},
                            "--rdzv-endpoint"));
  Node role = role_node(args, facts, job);
  root.emplace_back("roles", mapping({}, "--role"));
  root.back().second.entries.emplace_back(text(args.role, "--role"), std::move(role));
  // torchrun restarts the whole group on any failure, at once, --max-restarts times.
  Entries fault_tolerance = {
      {"mode", text("sync", "--max-restarts")},
      {"policy", text("onFailure", "--max-restarts")},
      {"restart", mapping({{"maxRestarts", number(args.max_restarts, "--max-restarts")},
                           {"backoff", number(0, "--max-restarts")}},
                          "--max-restarts")}};
  if (args.warm_start) {
    fault_tolerance.emplace_back("warmStart",
                                 mapping({{"roles", words({args.role}, "--pai-warm-start")},
                                          {"preload", words(*args.warm_start, "--pai-warm-start")}},
                                         "--pai-warm-start"));
  }
  root.emplace_back("faultTolerance", mapping(std::move(fault_tolerance), "--max-restarts"));
  if (!args.master_store.empty()) {
    root.emplace_back("masterStore", text(args.master_store, "--pai-master-store"));
  }
  const std::vector<std::string> checks =
      args.checks.value_or(std::vector<std::string>{"gpu", "network"});
  if (checks.empty()) {
    root.emplace_back("sanityCheck",
                      mapping({{"enabled", boolean(false, "--pai-checks")}}, "--pai-checks"));
  } else {
    root.emplace_back("sanityCheck",
                      mapping({{"checks", words(checks, "--pai-checks")}}, "--pai-checks"));
  }
  if (args.metrics_port != 0) {
    Entries monitoring = {{"metricsPort", number(args.metrics_port, "--pai-metrics-port")}};
    if (args.metrics_linger_seconds >= 0) {
      monitoring.emplace_back(
          "metricsLinger",
          text(std::to_string(args.metrics_linger_seconds) + "s", "--pai-metrics-linger"));
    }
    root.emplace_back("monitoring", mapping(std::move(monitoring), "--pai-metrics-port"));
  }
  return mapping(std::move(root), "torchrun");
}

}  // namespace

TorchrunJob torchrun_job(const TorchrunArgs& args, const TorchrunFacts& facts) {
  TorchrunJob job;
  read_rendezvous(args, facts, job);
  read_rdzv_conf(args, job);
  job.nproc_per_node = processes_per_node(args, facts);
  job.command = rank_command(args, facts);
  job.multi_node = args.max_nodes > 1;
  if (!job.multi_node) job.node_rank = 0;
  job.spec.file = "torchrun";
  job.spec.root = spec_root(args, facts, job);
  return job;
}

Plan torchrun_plan(const TorchrunJob& job, Diagnostics& diags) {
  JobSpec spec = parse_spec(job.spec, diags);
  if (diags.has_errors()) return spec.job;
  check_spec(spec, diags);
  if (diags.has_errors()) return spec.job;
  return make_plan(spec, diags);
}

std::string torchrun_spec_yaml(const TorchrunJob& job, const std::string& command_line) {
  std::string out = "# The job of: " + command_line +
                    "\n"
                    "# Written by pai-launch torchrun --print-spec (docs/torchrun.md).\n";
  if (job.multi_node) {
    out +=
        "# node-1 and on (and the spares) are torchrun's other nodes, whose addresses the\n"
        "# coordinator learns when they join: for pai-compile, give each its real address.\n";
  }
  return out + to_yaml(job.spec.root);
}

}  // namespace pai
