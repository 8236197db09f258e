#include "launcher/commands/torchrun_command.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "compiler/document/diagnostics.h"
#include "compiler/torchrun/torchrun_spec.h"
#include "launcher/commands/coordinator_address.h"
#include "launcher/commands/node_claim.h"
#include "launcher/commands/run_command.h"
#include "launcher/commands/torchrun_facts.h"
#include "launcher/logs/output_writers.h"
#include "launcher/os/private_dir.h"
#include "launcher/os/signals.h"
#include "libpai/plan_json.h"
#include "libpai/shell_quote.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

// A problem found before anything started: said as an error, exit code 2.
struct Refusal {
  std::string text;
};

void say(const std::string& text) { terminal_say(2, "pai-launch: torchrun: " + text + "\n"); }

std::string getenv_or(const std::map<std::string, std::string>& env, const std::string& name,
                      const std::string& fallback) {
  const auto it = env.find(name);
  return it == env.end() || it->second.empty() ? fallback : it->second;
}

// 32 random bytes as hex: the token of a job whose every launcher runs here.
std::string random_token() {
  unsigned char bytes[32];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    throw Refusal{std::string("cannot make a job token: getrandom: ") + std::strerror(errno)};
  }
  std::string hex;
  for (unsigned char b : bytes) {
    static const char kDigits[] = "0123456789abcdef";
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  return hex;
}

// The token written, mode 0600, to a file of its own in the job's private folder under the
// launcher's run directory (PAI_TOKEN_FILE for the ranks, which `pai-launch rsh|ctl` use).
std::string write_token_file(const std::string& job, const std::string& token) {
  std::string dir;
  try {
    dir = make_private_dir(kLauncherRunDir, job);
  } catch (const PrivateDirError& e) {
    throw Refusal{e.what()};
  }
  const std::string path = dir + "/torchrun-" + std::to_string(::getpid()) + ".token";
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || !write_all(fd, token + "\n")) {
    if (fd >= 0) ::close(fd);
    throw Refusal{"cannot write the job token to " + path + ": " + std::strerror(errno)};
  }
  ::close(fd);
  return path;
}

// The job token, and whether its file is ours to remove.
struct Token {
  JobToken token;
  bool written = false;
};

// The job token: PAI_JOB_TOKEN, else --rdzv-conf token_file; made here for a job whose every
// launcher is this one. A job of several nodes without one is refused.
Token job_token(const TorchrunJob& job, const std::map<std::string, std::string>& env) {
  if (const std::string secret = getenv_or(env, "PAI_JOB_TOKEN", ""); !secret.empty()) {
    return {JobToken{secret, write_token_file(job.name, secret)}, true};
  }
  if (!job.token_file.empty()) {
    try {
      return {JobToken{read_job_token(job.token_file), job.token_file}, false};
    } catch (const LocateError& e) {
      throw Refusal{std::string("--rdzv-conf token_file: ") + e.what()};
    }
  }
  if (job.multi_node) {
    throw Refusal{
        "a job of several nodes needs a job token, the same on every node, that its "
        "launchers prove to each other: export PAI_JOB_TOKEN=<secret> on every node (e.g. the "
        "output of `openssl rand -hex 32`), or pass --rdzv-conf token_file=FILE (a file of "
        "one line; pai-compile writes one as job.token)"};
  }
  const std::string secret = random_token();
  return {JobToken{secret, write_token_file(job.name, secret)}, true};
}

std::string self_exe() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : path.string();
}

TorchrunFacts node_facts(const std::map<std::string, std::string>& env) {
  TorchrunFacts facts;
  facts.gpus = visible_gpus(env);
  facts.cpus = online_cpus();
  // torchrun runs the script with its own interpreter (sys.executable), or PYTHON_EXEC.
  const std::string interpreter = torchrun_interpreter(getenv_or(env, "PATH", ""), self_exe());
  facts.python = getenv_or(env, "PYTHON_EXEC", interpreter.empty() ? "python3" : interpreter);
  facts.free_port = free_port;
  facts.new_run_id = random_uuid;
  return facts;
}

// torchrun's log folder: <--log-dir or $TMPDIR>/<job>_<random>, one per run.
std::string log_folder(const TorchrunArgs& args, const TorchrunJob& job,
                       const std::map<std::string, std::string>& env) {
  const std::string base = args.log_dir.value_or(getenv_or(env, "TMPDIR", "/tmp"));
  return std::filesystem::absolute(base).string() + "/" + job.name + "_" +
         random_uuid().substr(0, 8);
}

RunOptions run_options(const TorchrunArgs& args, const TorchrunJob& job,
                       const std::map<std::string, std::string>& env) {
  RunOptions options;
  options.log_dir = log_folder(args, job, env);
  options.rendezvous_timeout = job.join_timeout;
  options.addresses_from_peers = job.multi_node;
  for (int r = 0; r < job.nproc_per_node; ++r) {
    const auto [out, err] = console_streams(args, r);
    options.console.push_back(ConsoleStreams{out, err});
  }
  return options;
}

// torchrun's one change to the workers' environment it inherits: one OpenMP thread per
// worker when several share the node, unless the user chose.
void limit_openmp_threads(const TorchrunJob& job) {
  if (job.nproc_per_node <= 1 || std::getenv("OMP_NUM_THREADS") != nullptr) return;
  ::setenv("OMP_NUM_THREADS", "1", 0);
  say("OMP_NUM_THREADS=1 for each of the " + std::to_string(job.nproc_per_node) +
      " processes (torchrun's default); set it to tune");
}

// This node: its name in the plan, the coordinator when it serves it, the connection that
// holds its claim when it claimed it.
struct ThisNode {
  std::string name;
  std::unique_ptr<ServedCoordinator> coordinator;
  std::unique_ptr<net::Client> claim;
};

// Which node of the plan this launcher is, and the coordinator when it serves it: by
// --node-rank; else the node that listens first on the rendezvous endpoint is node-0 and
// serves the coordinator, and the others claim their node from it, in the order they ask.
ThisNode this_node(const TorchrunArgs& args, const TorchrunJob& job, const Plan& plan,
                   const JobToken& token, const RunOptions& options) {
  if (job.node_rank) {
    const int r = *job.node_rank;
    return {r < args.min_nodes ? "node-" + std::to_string(r)
                               : "spare-" + std::to_string(r - args.min_nodes),
            nullptr, nullptr};
  }
  const bool try_hosting = job.is_host.value_or(is_local_host(job.endpoint_host));
  if (try_hosting) {
    try {
      return {"node-0", serve_coordinator(plan, options, token.secret, options.log_dir, "node-0"),
              nullptr};
    } catch (const std::runtime_error& e) {
      const std::string why = e.what();
      const bool taken = why.find("Address already in use") != std::string::npos ||
                         why.find("Cannot assign requested address") != std::string::npos;
      if (job.is_host.value_or(false) || !taken) throw Refusal{why};
      // Another launcher on this machine listens there already: this one is another node.
      std::error_code ec;
      std::filesystem::remove_all(options.log_dir + "/coordinator", ec);
    }
  }
  ClaimTarget target;
  target.address = job.endpoint_host;
  target.port = job.endpoint_port;
  target.token = token.secret;
  target.job = plan.name;
  target.identity = claim_identity();
  target.timeout = job.join_timeout;
  say("asking the coordinator at " + job.endpoint_host + ":" + std::to_string(job.endpoint_port) +
      " which node this is");
  ClaimedNode claimed = claim_node(target);
  return {claimed.node, nullptr, std::move(claimed.connection)};
}

// Words a shell takes back as they are.
constexpr const char* kPlainCharacters =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,@+-";

// The command line as a shell would take it back, without --print-spec: what the spec is of.
std::string command_line(const std::vector<std::string>& args) {
  std::string line = "torchrun";
  for (const std::string& a : args) {
    if (a == "--print-spec") continue;
    const bool plain = !a.empty() && a.find_first_not_of(kPlainCharacters) == std::string::npos;
    line += " " + (plain ? a : shell_quote(a));
  }
  return line;
}

int run(const std::vector<std::string>& words) {
  const std::map<std::string, std::string> env = process_environment();
  TorchrunArgs args;
  TorchrunJob job;
  try {
    args = parse_torchrun_args(words, env);
    if (args.help) {
      write_all(1, torchrun_usage());
      return 0;
    }
    job = torchrun_job(args, node_facts(env));
  } catch (const TorchrunError& e) {
    throw Refusal{e.what()};
  }
  Diagnostics diags;
  Plan plan = torchrun_plan(job, diags);
  if (!diags.all().empty()) write_all(2, diags.render_text({}));
  if (diags.has_errors()) throw Refusal{"the command line does not make a job (above)"};
  if (args.print_spec) {
    write_all(1, torchrun_spec_yaml(job, command_line(words)));
    return 0;
  }
  for (const std::string& note : job.notes) say("note: " + note);
  const Token token = job_token(job, env);
  plan.seal = plan_seal(plan, token.token.secret);
  limit_openmp_threads(job);
  const RunOptions options = run_options(args, job, env);
  PlanToRun run;
  // Lives until the job ends: its claim connection keeps the node this launcher's.
  ThisNode node;
  try {
    node = this_node(args, job, plan, token.token, options);
    run.node = node.name;
    run.coordinator = std::move(node.coordinator);
  } catch (const ClaimError& e) {
    if (e.signal() != 0) {
      say(e.what());
      return 128 + e.signal();
    }
    throw Refusal{e.what()};
  }
  say("job '" + plan.name + "': this is " + run.node + " of " + std::to_string(plan.nodes) +
      " node(s); logs in " + options.log_dir);
  run.plan = std::move(plan);
  run.token = token.token;
  const int code = run_plan(std::move(run), options);
  // The job's private folder under the run directory goes when nothing else is in it.
  if (token.written) {
    ::unlink(token.token.file.c_str());
    ::rmdir(std::filesystem::path(token.token.file).parent_path().c_str());
  }
  return code;
}

}  // namespace

int torchrun_command(const std::vector<std::string>& args) {
  // Before any thread (the coordinator's) starts: signals are read from a signalfd.
  block_consumed_signals();
  try {
    return run(args);
  } catch (const Refusal& r) {
    terminal_say(2, "pai-launch: torchrun: error: " + r.text + "\n");
    return 2;
  }
}

}  // namespace pai::launcher
