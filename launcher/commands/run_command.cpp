#include "launcher/commands/run_command.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "launcher/checks/history_check.h"
#include "launcher/checks/port_reservations.h"
#include "launcher/checks/sanity_checks.h"
#include "launcher/commands/coordinator_address.h"
#include "launcher/commands/coordinator_ha.h"
#include "launcher/commands/ended_coordinator_command.h"
#include "launcher/commands/finished_job.h"
#include "launcher/commands/served_coordinator.h"
#include "launcher/commands/torchrun_facts.h"
#include "launcher/logs/event_log.h"
#include "launcher/logs/output_writers.h"
#include "launcher/node/check_cgroups.h"
#include "launcher/node/node_identity.h"
#include "launcher/node/run_node_agent.h"
#include "launcher/node/slurm_inventory.h"
#include "launcher/os/fd.h"
#include "launcher/os/node_lock.h"
#include "launcher/os/private_dir.h"
#include "launcher/os/signals.h"
#include "launcher/report/log_folder.h"
#include "launcher/report/report_file.h"
#include "launcher/supervisor/nccl_profiler_library.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/exit_codes.h"
#include "libpai/plan_json.h"
#include "libpai/terminal_text.h"
#include "libpai/write_all.h"

namespace pai::launcher {

namespace {

using Clock = std::chrono::steady_clock;

// A usage, plan, node, token or log-dir problem found before anything started: said as an
// error, exit code 2.
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void say(const std::string& text) { terminal_say(2, "pai-launch: " + text + "\n"); }

int fail(const std::string& text) {
  say("error: " + text);
  return 2;
}

// "[1.2 ms]" since `since`.
std::string took(Clock::time_point since) {
  char buf[32];
  std::snprintf(buf, sizeof buf, " [%.1f ms]",
                std::chrono::duration<double, std::milli>(Clock::now() - since).count());
  return buf;
}

// mkdir -p with `mode` for the directories it creates; "" or why not.
std::string make_dirs(const std::string& path, mode_t mode) {
  std::string prefix;
  std::size_t at = 0;
  while (at != std::string::npos) {
    at = path.find('/', at + 1);
    prefix = path.substr(0, at);
    if (prefix.empty()) continue;
    if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) return std::strerror(errno);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  return "";
}

// --verdict-file: the job's exit code, one line, written whole (a new file renamed into place),
// so that a reader never sees a part of it. A failure only warns: the job is over.
void write_verdict(const std::string& path, int code) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  std::string why = parent.empty() ? "" : make_dirs(parent, 0750);
  const std::string staged = path + ".tmp" + std::to_string(::getpid());
  if (why.empty()) {
    const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    const bool written = fd >= 0 && write_all(fd, std::to_string(code) + "\n");
    if (!written) why = std::strerror(errno);
    if (fd >= 0 && ::close(fd) != 0 && why.empty()) why = std::strerror(errno);
    if (why.empty() && ::rename(staged.c_str(), path.c_str()) != 0) why = std::strerror(errno);
  }
  if (!why.empty()) {
    ::unlink(staged.c_str());
    say("warning: cannot write the job's exit code to " + terminal_safe(path) + ": " + why);
  }
}

// Whether `text` is an IPv4 or IPv6 literal.
bool numeric_address(const std::string& text) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 || inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

// The launcher's own path, for OMPI_MCA_plm_rsh_agent and the drill's GPU burner.
std::string self_path() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("pai-launch") : path.string();
}

// Runs this node's checks with `options` and reports them in the journal and on the terminal.
std::vector<checks::CheckResult> run_checks(const Plan& plan, const Placement& placement,
                                            EventLog& events, checks::CheckOptions options,
                                            bool serving_coordinator = false) {
  options.coordinator_served_here = serving_coordinator;
  auto results = checks::run_sanity_checks(plan, placement, options);
  checks::keep_history(plan, placement.host.name, &results);
  for (const auto& result : results) {
    events.record(journal::Check{.name = result.name,
                                 .status = checks::to_string(result.status),
                                 .summary = result.summary,
                                 .figure = result.figure,
                                 .seconds = result.seconds});
    say("check " + result.name + ": " + checks::to_string(result.status) + ": " + result.summary);
  }
  if (!checks::all_passed(results)) {
    for (const auto& result : results) {
      if (result.status == checks::CheckResult::Failed && !result.detail.empty()) {
        terminal_say(2, result.detail + (result.detail.back() == '\n' ? "" : "\n"));
      }
    }
  }
  return results;
}

// What both paths share once the plan is loaded and the node identified.
struct NodeRun {
  Plan plan;
  bool in_job = false;                   // with a coordinator (several nodes, spares or --slurm)
  std::string node;                      // this node's host name
  const Placement* placement = nullptr;  // null on a spare
  std::string instance;                  // "<role>-<i>", or "spare-<node>"
  std::string log_dir;
  std::string control_dir;
  std::unique_ptr<NodeLock> node_lock;  // held from the control folder's making to the end
  std::optional<JobToken> token;        // the plan was verified with it; always in a job
  std::unique_ptr<EventLog> events;
  // Where the checks' children run (made after the node lock, when the plan checks), the
  // ports the network check holds until the launcher exits, and how every round of checks
  // runs.
  std::unique_ptr<CheckCgroups> check_cgroups;
  std::unique_ptr<checks::PortReservations> port_reservations;
  checks::CheckOptions check_options;
};

// ---- the steps of run_command, in order ----

// The plan, its seal verified with the job token: --token-file, else job.token beside the
// plan when there is one (libpai/plan_seal.h says what is accepted without a token).
void load_plan(NodeRun& run, const RunOptions& options) {
  const auto t = Clock::now();
  const std::string& path = options.plan_path;
  try {
    run.token = find_job_token(path, options.token_file);
    run.plan = load_plan_file(path, run.token);
  } catch (const LocateError& e) {
    throw SetupError(e.what());
  } catch (const PlanError& e) {
    throw SetupError(e.what());
  }
  say("plan: job '" + run.plan.name + "' from " + path + " (" + run.plan.compiler + ", " +
      std::to_string(run.plan.nodes) + " instance(s), " + std::to_string(process_count(run.plan)) +
      " process(es))" + took(t));
}

// A job of several nodes, or with spares, or on a Slurm allocation runs with a coordinator.
// A one-node job that serves metrics runs with its coordinator too: the coordinator serves them.
bool runs_in_job(const Plan& plan, const RunOptions& options) {
  return plan.nodes > 1 || !plan.spares.empty() || options.slurm ||
         plan.monitoring.metrics_port != 0;
}

// --slurm: the allocation's nodes become the plan's hosts; this node is the one Slurm names.
NodeHints place_on_slurm_allocation(Plan& plan) {
  const auto t = Clock::now();
  try {
    const SlurmAllocation allocation = read_slurm_allocation(process_environment());
    apply_slurm_allocation(plan, allocation);
    say("slurm: job " + allocation.job_id + ", " + std::to_string(allocation.nodes.size()) +
        " node(s); this is " + allocation.node_name + "; coordinator at " +
        plan.coordinator.address + ":" + std::to_string(plan.coordinator.port) + took(t));
    return NodeHints{allocation.node_name, std::nullopt};
  } catch (const std::invalid_argument& e) {
    throw SetupError(std::string("--slurm: ") + e.what());
  }
}

// Which host of the plan this is, and what it runs (nothing yet on a spare).
void identify_this_node(NodeRun& run, const NodeHints& hints) {
  const auto t = Clock::now();
  try {
    std::string how;
    const LocalIdentity local = local_identity();
    const Host* spare = run.in_job ? identify_spare(run.plan, hints, local) : nullptr;
    if (spare != nullptr) {
      run.node = spare->name;
      run.placement = nullptr;
      say("node: " + spare->name + " is a spare: it waits to replace a node" + took(t));
    } else {
      run.placement = &identify_node(run.plan, hints, local, &how);
      run.node = run.placement->host.name;
      say("node: " + run.node + " runs " + run.placement->role + "-" +
          std::to_string(run.placement->index) + " (by " + how + ")" + took(t));
    }
  } catch (const NodeError& e) {
    throw SetupError(e.what());
  }
  run.instance = run.placement != nullptr
                     ? run.placement->role + "-" + std::to_string(run.placement->index)
                     : "spare-" + run.node;
}

// Every launcher of a job with a coordinator authenticates with the job token (a plan sealed
// with one was refused already without it).
void require_token(const NodeRun& run, const RunOptions& options) {
  if (!run.in_job || run.token) return;
  throw SetupError("a multi-node job needs the job token: pass --token-file (looked for " +
                   token_beside(options.plan_path) + ")");
}

// The instance's log folder and its journal, which records the launcher's start.
void open_journal(NodeRun& run, const RunOptions& options) {
  const auto t = Clock::now();
  run.log_dir =
      options.log_dir.empty() ? default_log_dir(run.plan, options.plan_path) : options.log_dir;
  if (std::string why = make_dirs(run.log_dir + "/" + run.instance, 0750); !why.empty()) {
    throw SetupError("cannot write logs to " + run.log_dir + ": " + why);
  }
  try {
    run.events = std::make_unique<EventLog>(run.log_dir + "/" + run.instance + "/events.jsonl");
  } catch (const std::system_error& e) {
    throw SetupError("cannot write logs to " + run.log_dir + ": " + e.code().message());
  }
  say("logs: " + run.log_dir + "/" + run.instance + took(t));

  const Role* role = run.placement != nullptr ? find_role(run.plan, run.placement->role) : nullptr;
  // A journal that cannot take its first record (a full disk) stops the launch cleanly; later
  // failures only make it incomplete. Nothing runs yet: waiting for the write is no harm.
  run.events->record(journal::LauncherStarted{.job = run.plan.name,
                                              .node = run.node,
                                              .instance = run.instance,
                                              .processes = role ? role->nproc_per_node : 0,
                                              .pid = getpid()});
  run.events->flush();
  if (run.events->incomplete()) {
    throw SetupError("cannot write logs to " + run.log_dir + ": the journal " +
                     run.events->path() + " cannot be written (is the disk full?)");
  }
}

// The last line of a run: its exit code, and a journal that lost records.
int finish_run(const NodeRun& run, int code, Clock::time_point start) {
  if (run.events) run.events->flush();
  if (run.events && run.events->incomplete()) {
    say("warning: the journal " + run.events->path() + " is incomplete: " +
        std::to_string(run.events->lost()) + " record(s) could not be written");
  }
  say("done: exit code " + std::to_string(code) + took(start));
  return code;
}

// `<control_root>/<job>/<node>`, both private to the user (os/private_dir.h): launchers of
// one job that share a machine (tests and demos on loopback addresses, a spare taking over
// the instance of a node whose launcher still runs) never share a socket or a telemetry ring.
std::string make_control_dir(const NodeRun& run, const RunOptions& options) {
  if (run.node.empty() || run.node == "." || run.node == ".." ||
      run.node.find('/') != std::string::npos) {
    throw SetupError("node name " + terminal_safe(run.node) + " cannot name a folder");
  }
  try {
    return make_private_dir(make_private_dir(options.control_root, run.plan.name), run.node);
  } catch (const PrivateDirError& e) {
    throw SetupError(e.what());
  }
}

// Before anything of this node is touched (its journal, sockets, cgroup tree): a second
// launcher of the job and node on this machine stops here (os/node_lock.h).
std::unique_ptr<NodeLock> lock_node(const NodeRun& run) {
  try {
    return std::make_unique<NodeLock>(run.control_dir + "/launcher.lock",
                                      "node " + run.node + " of job '" + run.plan.name + "'");
  } catch (const NodeLockError& e) {
    throw SetupError(e.what());
  }
}

// The launcher's cgroup tree: one per job and node, so a restarted launcher finds what an
// earlier one left (os/cgroup.h).
std::string cgroup_name(const NodeRun& run) { return "pai-" + run.plan.name + "." + run.node; }

// The checks' children in cgroups of their own (node/check_cgroups.h), when the plan checks:
// after the node lock, like the ranks' tree, so a stale tree is never a running launcher's.
// The ports the network check passes stay reserved until the launcher exits
// (checks/port_reservations.h): another job's launcher cannot pass its check on them.
void prepare_checks(NodeRun& run) {
  if (!run.plan.sanity_check.enabled) return;
  run.check_cgroups = std::make_unique<CheckCgroups>(check_cgroups_name(run.plan.name, run.node),
                                                     [](const std::string& text) { say(text); });
  run.check_options.containment = run.check_cgroups.get();
  run.port_reservations = std::make_unique<checks::PortReservations>();
  run.check_options.reservations = run.port_reservations.get();
}

// ---- a one-node job ----

// Its checks must pass before anything starts.
bool passes_checks_alone(NodeRun& run) {
  const auto t = Clock::now();
  if (!checks::all_passed(run_checks(run.plan, *run.placement, *run.events, run.check_options))) {
    run.events->record(
        journal::JobFailed{.job = run.plan.name, .reason = "sanity checks failed", .exit_code = 1});
    say("error: sanity checks failed on " + run.placement->host.name + "; nothing was started" +
        took(t));
    return false;
  }
  say("sanity checks: passed" + took(t));
  return true;
}

// The NCCL profiler plugin for the ranks when the plan asks for it (PAI_NCCL_PROFILER, else
// beside this executable); "" with a warning when it cannot be found: the job runs without.
std::string nccl_profiler_of(const NodeRun& run) {
  if (!run.plan.fault_tolerance.diagnosis.nccl_profiler) return "";
  const char* override_path = std::getenv("PAI_NCCL_PROFILER");
  std::string path = find_nccl_profiler(self_path(), override_path ? override_path : "");
  if (path.empty()) {
    say(std::string("warning: faultTolerance.diagnosis.ncclProfiler: ") +
        (override_path && *override_path
             ? "PAI_NCCL_PROFILER=" + std::string(override_path) + " names no file"
             : std::string(kNcclProfilerLibrary) + " is not installed beside " + self_path()) +
        "; NCCL collectives are not recorded");
  }
  return path;
}

SupervisorOptions supervisor_options_alone(const NodeRun& run, const RunOptions& options) {
  SupervisorOptions supervisor;
  supervisor.console = options.console;
  supervisor.nccl_profiler = nccl_profiler_of(run);
  supervisor.log_dir = run.log_dir;
  supervisor.control_dir = run.control_dir;
  supervisor.cgroup_name = cgroup_name(run);
  if (run.plan.framework == Framework::Mpi) {
    std::filesystem::path hostfile =
        std::filesystem::path(options.plan_path).parent_path() / "hostfile";
    if (std::filesystem::exists(hostfile)) {
      supervisor.hostfile = std::filesystem::absolute(hostfile).string();
    }
  }
  return supervisor;
}

int run_alone(NodeRun& run, const RunOptions& options, Clock::time_point start) {
  if (run.plan.sanity_check.enabled && !passes_checks_alone(run)) {
    report::write_report_beside_logs(run.log_dir);
    return 1;
  }
  std::unique_ptr<Supervisor> supervisor;
  try {
    supervisor =
        std::make_unique<Supervisor>(run.plan, std::vector<const Placement*>{run.placement},
                                     supervisor_options_alone(run, options), *run.events);
  } catch (const std::runtime_error& e) {
    return fail(e.what());
  }
  int code = 1;
  try {
    code = supervisor->run();
  } catch (const std::exception& e) {
    // The supervisor's destructor kills what it started.
    say(std::string("error: ") + e.what());
    return 1;
  }
  supervisor.reset();
  // The job's journal is complete: its report goes next to the logs (a failure only warns).
  report::write_report_beside_logs(run.log_dir);
  return finish_run(run, code, start);
}

// ---- a node of a job with a coordinator ----

// Starts the job's coordinator (serve_coordinator(), below); a failure is a setup error.
std::unique_ptr<ServedCoordinator> serve_coordinator_of(const NodeRun& run,
                                                        const RunOptions& options,
                                                        const std::string& token) {
  try {
    return serve_coordinator(run.plan, options, token, run.log_dir, run.node);
  } catch (const std::runtime_error& e) {
    throw SetupError(e.what());
  }
}

// The same for `plan` (a leader's under coordinator.ha). A launcher that cannot serve exits:
// its lease ends with it, and the next candidate leads.
std::unique_ptr<ServedCoordinator> serve_coordinator_of_plan(const Plan& plan, const NodeRun& run,
                                                             const RunOptions& options,
                                                             HaServing ha) {
  try {
    return serve_coordinator(plan, options, run.token->secret, run.log_dir, run.node,
                             std::move(ha));
  } catch (const std::runtime_error& e) {
    throw SetupError(e.what());
  }
}

// The checks whose results the node joins with (none when the plan disables them).
std::vector<checks::CheckResult> check_before_joining(NodeRun& run, bool hosts_coordinator) {
  if (!run.plan.sanity_check.enabled) return {};
  const Plan& plan = run.plan;
  const auto t = Clock::now();
  // A spare checks itself as the first instance would be checked, on its own address and
  // without the ports that instance reserves on another host.
  Placement as_spare;
  if (run.placement == nullptr) {
    as_spare = plan.placements.at(0);
    as_spare.ports.clear();
    for (const Host& h : plan.spares) {
      if (h.name == run.node) as_spare.host = h;
    }
  }
  const auto results = run_checks(plan, run.placement != nullptr ? *run.placement : as_spare,
                                  *run.events, run.check_options, hosts_coordinator);
  say(std::string("sanity checks: ") + (checks::all_passed(results) ? "passed" : "FAILED") +
      "; reporting to the coordinator" + took(t));
  return results;
}

// The node's own address to connect from, when it has one here, so the coordinator can
// check who we are; "" = any.
std::string bind_address(const NodeRun& run, const RunOptions& options) {
  const Host* me = nullptr;
  for (const Host& h : run.plan.hosts) {
    if (h.name == run.node) me = &h;
  }
  for (const Host& h : run.plan.spares) {
    if (h.name == run.node) me = &h;
  }
  if (me == nullptr || !numeric_address(me->address) || options.slurm) return "";
  const LocalIdentity local = local_identity();
  if (std::find(local.addresses.begin(), local.addresses.end(), me->address) !=
          local.addresses.end() ||
      me->address.rfind("127.", 0) == 0) {
    return me->address;
  }
  return "";
}

NodeAgentOptions agent_options(const NodeRun& run, const RunOptions& options,
                               const std::string& token, std::vector<checks::CheckResult> results,
                               bool hosts_coordinator) {
  const Plan& plan = run.plan;
  NodeAgentOptions agent;
  agent.node = run.node;
  agent.coordinator_address = plan.coordinator.address;
  agent.coordinator_port = plan.coordinator.port;
  agent.token = token;
  agent.bind_address = bind_address(run, options);
  agent.rendezvous_timeout = options.rendezvous_timeout;
  agent.heartbeat_interval = options.heartbeat_interval;
  agent.checks = std::move(results);
  agent.check_options = run.check_options;
  agent.serves_coordinator = hosts_coordinator;
  agent.run_dir = run.control_dir;
  agent.supervisor.log_dir = run.log_dir;
  agent.supervisor.console = options.console;
  agent.supervisor.control_dir = run.control_dir;
  agent.supervisor.cgroup_name = cgroup_name(run);
  agent.supervisor.nccl_profiler = nccl_profiler_of(run);
  agent.supervisor.coordinator =
      plan.coordinator.address + ":" + std::to_string(plan.coordinator.port);
  agent.supervisor.token_file = std::filesystem::absolute(run.token->file).string();
  if (plan.framework == Framework::Mpi) {
    agent.supervisor.hostfile = run.control_dir + "/hostfile";
    agent.supervisor.rsh_agent = self_path() + " rsh";
  }
  agent.supervisor.gpu_burner = {self_path(), "drill-burn"};
  return agent;
}

// A launcher of a machine that had none connected when the job ended may still come (started
// late, or again after its own failure): rather than retry a closed port for its whole
// rendezvous timeout, it hears how the job ended from an ended coordinator, which stays as
// long as a rendezvous begun with this one could have lasted, and at least a minute (at most
// a day).
void answer_late_launchers(const NodeRun& run, const RunOptions& options, Clock::time_point start,
                           coordinator::EndedJob job, const std::vector<std::string>& absent) {
  constexpr std::chrono::minutes kAtLeast{1};
  try {
    job.end = job_end_from_log_folder(run.log_dir);
  } catch (const report::LogFolderError&) {
    job.end = "the job ended";
  }
  const auto now = Clock::now();
  const auto serve_for = std::min<std::chrono::seconds>(
      std::chrono::ceil<std::chrono::seconds>(
          std::max(start + options.rendezvous_timeout, now + kAtLeast) - now),
      kEndedCoordinatorLimit);
  std::string machines;
  for (const std::string& name : absent) machines += (machines.empty() ? "" : ", ") + name;
  try {
    const int pid = start_ended_coordinator(self_path(), job, serve_for);
    say("coordinator: no launcher of " + machines + " was connected at the end: for " +
        std::to_string(serve_for.count()) + "s, one that comes late hears how the job ended " +
        "(pai-launch ended-coordinator, pid " + std::to_string(pid) + ")");
  } catch (const std::exception& e) {
    say(std::string("coordinator: cannot stay to tell launchers that come late how the job "
                    "ended: ") +
        e.what());
  }
}

// The job ended with this launcher's coordinator: the other launchers hear how before it goes
// (and a scraper the final state, monitoring.metricsLinger), the report goes beside the logs,
// a launcher that comes late is answered, and --verdict-file gets the exit code.
void end_coordination(const NodeRun& run, const RunOptions& options, Clock::time_point start,
                      std::unique_ptr<ServedCoordinator> coordinator, int code) {
  coordinator->wait(std::chrono::seconds(10 + run.plan.monitoring.metrics_linger_seconds));
  const std::vector<std::string> absent = coordinator->absent();
  coordinator::EndedJob ended{.job = run.plan.name,
                              .listen_address = coordinator->listen_address(),
                              .port = coordinator->port(),
                              .end = {}};
  coordinator.reset();
  // The coordinator's journal, which ends the job's story, is closed: the report goes next
  // to the logs (a failure only warns).
  report::write_report_beside_logs(run.log_dir);
  if (!absent.empty()) answer_late_launchers(run, options, start, std::move(ended), absent);
  if (!options.verdict_file.empty()) write_verdict(options.verdict_file, code);
}

// Runs the node's agent against the coordinator at `address`:`port` on a fresh copy of the
// loaded plan (assign re-places the copy it is given).
int run_agent(const NodeRun& run, const RunOptions& options,
              const std::vector<checks::CheckResult>& results, bool serving,
              const std::string& address, int port, std::function<std::string()> give_up = {},
              std::optional<std::pair<int, int>>* ran = nullptr) {
  NodeAgentOptions agent = agent_options(run, options, run.token->secret, results, serving);
  agent.coordinator_address = address;
  agent.coordinator_port = port;
  agent.give_up = std::move(give_up);
  if (ran != nullptr) agent.ran = *ran;
  agent.supervisor.coordinator = address + ":" + std::to_string(port);
  Plan plan = run.plan;
  try {
    return run_node_agent(plan, agent, *run.events, ran);
  } catch (const std::exception& e) {
    say(std::string("error: ") + e.what());
    return 1;
  }
}

int run_in_job(NodeRun& run, const RunOptions& options, Clock::time_point start,
               std::unique_ptr<ServedCoordinator> coordinator) {
  const std::string& token = run.token->secret;
  // The coordinator first: the other launchers may already be knocking, and this node's
  // network check tests that it answers.
  const bool hosts_coordinator = run.node == run.plan.coordinator.host;
  if (hosts_coordinator && !coordinator) coordinator = serve_coordinator_of(run, options, token);

  const int code =
      run_agent(run, options, check_before_joining(run, hosts_coordinator), hosts_coordinator,
                run.plan.coordinator.address, run.plan.coordinator.port);
  if (coordinator) end_coordination(run, options, start, std::move(coordinator), code);
  return finish_run(run, code, start);
}

// ---- a node of a job with coordinator.ha ----

// This node's address in the plan: where it serves the coordinator when it leads.
std::string own_address(const NodeRun& run) {
  for (const auto* list : {&run.plan.hosts, &run.plan.spares}) {
    for (const Host& h : *list) {
      if (h.name == run.node) return h.address;
    }
  }
  return run.node;
}

// The coordinator this launcher serves while it leads: stepped down from the lead watcher's
// thread when the lease may have expired, used by the launcher's thread otherwise.
struct HeldLead {
  std::mutex mutex;
  std::unique_ptr<ServedCoordinator> served;  // guarded
};

// Serves the coordinator as the leader `me` (after `lost`'s coordinator was lost, unless "").
void lead_job(NodeRun& run, const RunOptions& options, CoordinatorHa& ha, const HaLeader& me,
              const std::string& lost, HeldLead& held) {
  Plan plan = run.plan;
  plan.coordinator.host = run.node;
  plan.coordinator.address = me.address;
  HaServing serving;
  if (!lost.empty()) {
    std::string problem;
    auto state = ha.read_state(&problem);
    if (!problem.empty()) say("warning: coordinator.ha: " + problem + "; the job starts afresh");
    serving.takeover = coordinator::Takeover{.lost_node = lost,
                                             .state = state.value_or(coordinator::TakeoverState{})};
  }
  serving.publish_state = [&ha](const coordinator::TakeoverState& state) { ha.publish(state); };
  // Cut off from every other node, it cannot coordinate: it gives the lead up for another.
  serving.on_cut_off = [&ha](const std::string& why) { ha.resign(why); };
  auto served = serve_coordinator_of_plan(plan, run, options, std::move(serving));
  served->note(coordinator::Record(
      journal::CoordinatorElected{.node = run.node,
                                  .address = me.where(),
                                  .revision = me.revision,
                                  .lost = lost.empty() ? std::nullopt : std::optional(lost)},
      "elected to coordinate (etcd revision " + std::to_string(me.revision) + ")" +
          (lost.empty() ? "" : ": the coordinator on " + lost + " was lost")));
  {
    std::lock_guard<std::mutex> lock(held.mutex);
    held.served = std::move(served);
  }
  ha.watch([&held, node = run.node](const std::string& why) {
    std::lock_guard<std::mutex> lock(held.mutex);
    if (held.served) held.served->step_down(node, why);
  });
}

// With coordinator.ha: the coordinator is whichever launcher leads the job's etcd election.
// The plan's coordinator host leads at the start; every other launcher joins the leader etcd
// names and stands by. A launcher that loses its coordinator stops its ranks and joins the
// next leader, or serves itself when it is elected (docs/coordinator-ha.md).
int run_in_job_ha(NodeRun& run, const RunOptions& options, Clock::time_point start) {
  HeldLead held;  // outlives `ha`, whose lead watcher steps it down
  std::unique_ptr<CoordinatorHa> ha;
  try {
    ha = std::make_unique<CoordinatorHa>(run.plan, run.node, own_address(run));
  } catch (const std::runtime_error& e) {
    throw SetupError(e.what());
  }
  std::vector<checks::CheckResult> results;
  bool checked = false;
  std::string lost;  // the node whose coordinator was lost; "" at the start
  std::optional<std::pair<int, int>> ran;  // the instance this node last ran, and its attempt
  int code = 1;
  for (;;) {
    const auto deadline = Clock::now() + options.rendezvous_timeout;
    std::optional<HaLeader> leader;
    bool serving = false;
    if (lost.empty() && run.node == run.plan.coordinator.host) {
      leader = ha->lead(deadline);
      serving = leader.has_value();
    } else if (!lost.empty() && (leader = ha->elected())) {
      serving = true;
    }
    if (!leader) {
      std::string error;
      leader = ha->find_leader(lost, deadline, &error);
      if (!leader) {
        const int signal = pending_stop_signal();
        say("error: coordinator.ha: no coordinator to join: " + error);
        run.events->record(journal::CoordinatorUnreachable{.coordinator = "etcd", .error = error});
        code = signal != 0 ? 128 + signal : lost.empty() ? 1 : kExitCoordinatorLost;
        break;
      }
      serving = leader->node == run.node;
    }
    run.events->record(journal::CoordinatorFound{
        .node = leader->node, .coordinator = leader->where(), .revision = leader->revision});
    if (serving) {
      lead_job(run, options, *ha, *leader, lost, held);
    } else {
      say("coordinator.ha: " + leader->node + " coordinates, at " + leader->where());
      // Behind the leader: its key is older than ours.
      ha->stand_by();
    }
    if (!checked) {
      results = check_before_joining(run, serving);
      checked = true;
    }
    // A leader that dies before this launcher joined it is replaced in etcd: asked again
    // while the join fails, every half lease once it failed for a lease.
    std::string moved;
    const auto lease = std::chrono::seconds(run.plan.coordinator_ha.lease_seconds);
    auto ask_at = Clock::now() + lease;
    auto give_up = [&]() -> std::string {
      if (Clock::now() < ask_at) return "";
      ask_at = Clock::now() + lease / 2;
      if (ha->elected()) {
        moved = "this launcher was elected to coordinate";
      } else if (const auto now = ha->current_leader(); now && now->revision != leader->revision) {
        moved = "etcd names " + now->node + " at " + now->where() + " the coordinator now";
      }
      return moved;
    };
    code = run_agent(run, options, results, serving, leader->address, leader->port,
                     serving ? std::function<std::string()>() : give_up, &ran);
    if (!moved.empty() && pending_stop_signal() == 0) {
      lost = leader->node;
      say("coordinator.ha: " + moved);
      continue;
    }
    if (serving) {
      std::unique_lock<std::mutex> lock(held.mutex);
      if (!held.served->stepped_down()) {
        end_coordination(run, options, start, std::move(held.served), code);
        break;
      }
      held.served.reset();
      code = kExitCoordinatorLost;
    }
    if (code != kExitCoordinatorLost || pending_stop_signal() != 0) break;
    lost = leader->node;
    say("coordinator.ha: the coordinator on " + lost + " was lost; looking for the next one");
  }
  return finish_run(run, code, start);
}

// Everything after the plan is in hand: identify, journal, run, clean up.
int run_loaded(NodeRun& run, const NodeHints& hints, const RunOptions& options,
               Clock::time_point start, std::unique_ptr<ServedCoordinator> coordinator) {
  identify_this_node(run, hints);
  require_token(run, options);
  run.control_dir = make_control_dir(run, options);
  run.node_lock = lock_node(run);
  open_journal(run, options);
  prepare_checks(run);
  const int code = !run.in_job ? run_alone(run, options, start)
                   : run.plan.coordinator_ha.etcd.empty()
                       ? run_in_job(run, options, start, std::move(coordinator))
                       : run_in_job_ha(run, options, start);
  run.check_cgroups.reset();
  // Empty once the supervisor removed its socket and rings and the lock is gone; the job's
  // folder stays while another launcher of the job on this machine has one in it.
  run.node_lock.reset();
  ::rmdir(run.control_dir.c_str());
  ::rmdir(std::filesystem::path(run.control_dir).parent_path().c_str());
  return code;
}

}  // namespace

std::unique_ptr<ServedCoordinator> serve_coordinator(const Plan& plan, const RunOptions& options,
                                                     const std::string& token,
                                                     const std::string& log_dir,
                                                     const std::string& node, HaServing ha) {
  const auto t = Clock::now();
  const std::string dir = log_dir + "/coordinator";
  if (std::string why = make_dirs(dir, 0750); !why.empty()) {
    throw std::runtime_error("cannot write logs to " + dir + ": " + why);
  }
  coordinator::ServerOptions server_options;
  server_options.listen_address = numeric_address(plan.coordinator.address) && !options.slurm
                                      ? plan.coordinator.address
                                      : "0.0.0.0";
  server_options.port = plan.coordinator.port;
  server_options.token = token;
  server_options.settings.rendezvous_timeout = options.rendezvous_timeout;
  server_options.settings.heartbeat_interval = options.heartbeat_interval;
  server_options.settings.addresses_from_peers = options.slurm || options.addresses_from_peers;
  server_options.settings.own_node = node;
  server_options.settings.takeover = std::move(ha.takeover);
  server_options.settings.publish_state = std::move(ha.publish_state);
  server_options.on_cut_off = std::move(ha.on_cut_off);
  // The ended coordinator of an earlier run (or job) on this address and port gives it up.
  if (server_options.port != 0) {
    coordinator::dismiss_ended_coordinator(server_options.listen_address, server_options.port);
  }
  auto served = std::make_unique<ServedCoordinator>(plan, std::move(server_options), log_dir);
  say("coordinator: listening on " + plan.coordinator.address + ":" +
      std::to_string(served->port()) + " for " + std::to_string(plan.nodes) + " instance(s)" +
      (plan.spares.empty() ? "" : " and " + std::to_string(plan.spares.size()) + " spare(s)") +
      took(t));
  return served;
}

int run_command(const RunOptions& options) {
  block_consumed_signals();
  raise_descriptor_limit();
  const auto start = Clock::now();
  try {
    NodeRun run;
    load_plan(run, options);
    run.in_job = runs_in_job(run.plan, options);
    const NodeHints hints = options.slurm ? place_on_slurm_allocation(run.plan)
                                          : NodeHints{options.node, options.node_rank};
    return run_loaded(run, hints, options, start, nullptr);
  } catch (const SetupError& e) {
    return fail(e.what());
  }
}

int run_plan(PlanToRun plan, const RunOptions& options) {
  block_consumed_signals();
  raise_descriptor_limit();
  const auto start = Clock::now();
  try {
    NodeRun run;
    run.plan = std::move(plan.plan);
    run.token = std::move(plan.token);
    run.in_job = runs_in_job(run.plan, options);
    return run_loaded(run, NodeHints{plan.node, std::nullopt}, options, start,
                      std::move(plan.coordinator));
  } catch (const SetupError& e) {
    return fail(e.what());
  }
}

}  // namespace pai::launcher
