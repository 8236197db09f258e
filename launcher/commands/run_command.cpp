#include "launcher/commands/run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include <arpa/inet.h>

#include "launcher/commands/coordinator_address.h"
#include "launcher/logs/event_log.h"
#include "launcher/node/node_identity.h"
#include "launcher/os/signals.h"
#include "launcher/node/slurm_inventory.h"
#include "launcher/supervisor/supervisor.h"
#include "libpai/plan_json.h"

#include "launcher/checks/sanity_checks.h"
#include "launcher/coordinator/coordinator_server.h"
#include "launcher/node/run_node_agent.h"
#include "libpai/write_all.h"

extern char** environ;

namespace pai::launcher {

namespace {

using Clock = std::chrono::steady_clock;

void say(const std::string& text) { write_all(2, "pai-launch: " + text + "\n"); }

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

// Whether `text` is an IPv4 or IPv6 literal.
bool numeric_address(const std::string& text) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, text.c_str(), buf) == 1 || inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

// The job token's text, or "" with `*error` saying why.
std::string read_token(const std::string& path, std::string* error) {
  try {
    return read_job_token(path);
  } catch (const LocateError& e) {
    *error = e.what();
    return "";
  }
}

// The launcher's own path, for OMPI_MCA_plm_rsh_agent.
std::string self_path() {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("pai-launch") : path.string();
}

// A coordinator Record as an events.jsonl event.
EventFields event_fields(const nlohmann::json& fields) {
  EventFields out;
  if (!fields.is_object()) return out;
  for (const auto& [key, value] : fields.items()) {
    if (value.is_string()) {
      out.emplace_back(key, value.get<std::string>());
    } else if (value.is_boolean()) {
      out.emplace_back(key, value.get<bool>());
    } else if (value.is_number_integer()) {
      out.emplace_back(key, value.get<std::int64_t>());
    } else if (value.is_number()) {
      out.emplace_back(key, value.get<double>());
    } else {
      out.emplace_back(key, value.dump());
    }
  }
  return out;
}

std::string default_log_dir(const Plan& plan, const std::string& plan_path) {
  if (!plan.output.empty()) return plan.output + "/logs";
  std::filesystem::path dir = std::filesystem::path(plan_path).parent_path();
  return (dir.empty() ? std::filesystem::path(".") : dir).string() + "/logs";
}


// Runs this node's checks and reports them in the journal and on the terminal.
std::vector<checks::CheckResult> run_checks(const Plan& plan, const Placement& placement,
                                            EventLog& events, bool serving_coordinator = false) {
  checks::CheckOptions options;
  options.coordinator_served_here = serving_coordinator;
  const auto results = checks::run_sanity_checks(plan, placement, options);
  for (const auto& result : results) {
    events.record("check", {{"name", result.name},
                            {"status", std::string(checks::to_string(result.status))},
                            {"summary", result.summary},
                            {"figure", result.figure},
                            {"seconds", result.seconds}});
    say("check " + result.name + ": " + checks::to_string(result.status) + ": " + result.summary);
  }
  if (!checks::all_passed(results)) {
    for (const auto& result : results) {
      if (result.status == checks::CheckResult::Failed && !result.detail.empty()) {
        write_all(2, result.detail + (result.detail.back() == '\n' ? "" : "\n"));
      }
    }
  }
  return results;
}

// What both paths share once the plan is loaded and the node identified.
struct NodeRun {
  Plan plan;
  std::string node;             // this node's host name
  const Placement* placement;   // null on a spare
  std::string log_dir;
  std::string control_dir;
  std::string token_file;
  std::unique_ptr<EventLog> events;
};

int run_alone(NodeRun& run, const RunOptions& options, Clock::time_point start) {
  const Plan& plan = run.plan;
  const Placement* placement = run.placement;
  if (plan.sanity_check.enabled) {
    auto t = Clock::now();
    if (!checks::all_passed(run_checks(plan, *placement, *run.events))) {
      run.events->record("job-failed", {{"job", plan.name},
                                        {"reason", std::string("sanity checks failed")},
                                        {"exitCode", std::int64_t{1}}});
      say("error: sanity checks failed on " + placement->host.name + "; nothing was started" +
          took(t));
      return 1;
    }
    say("sanity checks: passed" + took(t));
  }

  SupervisorOptions supervisor_options;
  supervisor_options.log_dir = run.log_dir;
  supervisor_options.control_dir = run.control_dir;
  if (plan.framework == Framework::Mpi) {
    std::filesystem::path hostfile =
        std::filesystem::path(options.plan_path).parent_path() / "hostfile";
    if (std::filesystem::exists(hostfile)) {
      supervisor_options.hostfile = std::filesystem::absolute(hostfile).string();
    }
  }
  std::unique_ptr<Supervisor> supervisor;
  try {
    supervisor = std::make_unique<Supervisor>(plan, std::vector<const Placement*>{placement},
                                              supervisor_options, *run.events);
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
  say("done: exit code " + std::to_string(code) + took(start));
  return code;
}

int run_in_job(NodeRun& run, const RunOptions& options, Clock::time_point start) {
  Plan& plan = run.plan;
  std::string error;
  const std::string token = read_token(run.token_file, &error);
  if (token.empty()) return fail(error);

  // The coordinator first: the other launchers may already be knocking, and this node's
  // network check tests that it answers.
  std::unique_ptr<coordinator::CoordinatorServer> server;
  std::unique_ptr<EventLog> coordinator_events;
  const bool hosts_coordinator = run.node == plan.coordinator.host;
  if (hosts_coordinator) {
    auto t = Clock::now();
    const std::string dir = run.log_dir + "/coordinator";
    if (std::string why = make_dirs(dir, 0755); !why.empty()) {
      return fail("cannot write logs to " + dir + ": " + why);
    }
    try {
      coordinator_events = std::make_unique<EventLog>(dir + "/events.jsonl");
    } catch (const std::system_error& e) {
      return fail("cannot write logs to " + dir + ": " + e.code().message());
    }
    coordinator::ServerOptions server_options;
    server_options.listen_address =
        numeric_address(plan.coordinator.address) && !options.slurm ? plan.coordinator.address
                                                                    : "0.0.0.0";
    server_options.port = plan.coordinator.port;
    server_options.token = token;
    server_options.settings.rendezvous_timeout = options.rendezvous_timeout;
    server_options.settings.heartbeat_interval = options.heartbeat_interval;
    server_options.settings.addresses_from_peers = options.slurm;
    EventLog* journal = coordinator_events.get();
    server_options.record = [journal](const coordinator::Record& r) {
      try {
        journal->record(r.kind, event_fields(r.fields));
      } catch (const std::system_error&) {
        // The terminal line below still tells.
      }
      if (!r.line.empty()) say("coordinator: " + r.line);
    };
    try {
      server = std::make_unique<coordinator::CoordinatorServer>(plan, std::move(server_options));
    } catch (const std::runtime_error& e) {
      return fail(e.what());
    }
    say("coordinator: listening on " + plan.coordinator.address + ":" +
        std::to_string(server->port()) + " for " + std::to_string(plan.nodes) + " instance(s)" +
        (plan.spares.empty() ? "" : " and " + std::to_string(plan.spares.size()) + " spare(s)") +
        took(t));
  }

  std::vector<checks::CheckResult> results;
  if (plan.sanity_check.enabled) {
    auto t = Clock::now();
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
    results = run_checks(plan, run.placement != nullptr ? *run.placement : as_spare, *run.events,
                         hosts_coordinator);
    say(std::string("sanity checks: ") + (checks::all_passed(results) ? "passed" : "FAILED") +
        "; reporting to the coordinator" + took(t));
  }

  NodeAgentOptions agent;
  agent.node = run.node;
  agent.coordinator_address = plan.coordinator.address;
  agent.coordinator_port = plan.coordinator.port;
  agent.token = token;
  const Host* me = nullptr;
  for (const Host& h : plan.hosts) {
    if (h.name == run.node) me = &h;
  }
  for (const Host& h : plan.spares) {
    if (h.name == run.node) me = &h;
  }
  // Connecting from the node's own address lets the coordinator check who we are.
  if (me != nullptr && numeric_address(me->address) && !options.slurm) {
    const LocalIdentity local = local_identity();
    if (std::find(local.addresses.begin(), local.addresses.end(), me->address) !=
            local.addresses.end() ||
        me->address.rfind("127.", 0) == 0) {
      agent.bind_address = me->address;
    }
  }
  agent.rendezvous_timeout = options.rendezvous_timeout;
  agent.heartbeat_interval = options.heartbeat_interval;
  agent.checks = results;
  agent.serves_coordinator = hosts_coordinator;
  agent.run_dir = run.control_dir;
  agent.supervisor.log_dir = run.log_dir;
  agent.supervisor.control_dir = run.control_dir;
  agent.supervisor.coordinator = plan.coordinator.address + ":" + std::to_string(plan.coordinator.port);
  agent.supervisor.token_file = std::filesystem::absolute(run.token_file).string();
  if (plan.framework == Framework::Mpi) {
    agent.supervisor.hostfile = run.control_dir + "/hostfile";
    agent.supervisor.rsh_agent = self_path() + " rsh";
  }
  int code = 1;
  try {
    code = run_node_agent(plan, agent, *run.events);
  } catch (const std::exception& e) {
    say(std::string("error: ") + e.what());
    code = 1;
  }
  if (server) {
    // The other launchers must hear how the job ended before the coordinator goes.
    server->wait(std::chrono::seconds(10));
    server.reset();
  }
  say("done: exit code " + std::to_string(code) + took(start));
  return code;
}

}  // namespace

int run_command(const RunOptions& options) {
  block_consumed_signals();
  const auto start = Clock::now();

  auto t = Clock::now();
  NodeRun run;
  try {
    run.plan = load_plan_file(options.plan_path);
  } catch (const PlanError& e) {
    return fail(e.what());
  }
  Plan& plan = run.plan;
  say("plan: job '" + plan.name + "' from " + options.plan_path + " (" + plan.compiler + ", " +
      std::to_string(plan.nodes) + " instance(s), " + std::to_string(plan.world_size) +
      " process(es))" + took(t));
  const bool in_job = plan.nodes > 1 || !plan.spares.empty() || options.slurm;

  NodeHints hints{options.node, options.node_rank};
  if (options.slurm) {
    t = Clock::now();
    try {
      std::map<std::string, std::string> env;
      for (char** e = environ; *e != nullptr; ++e) {
        std::string_view entry(*e);
        const std::size_t eq = entry.find('=');
        if (eq != std::string_view::npos) {
          env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
        }
      }
      const SlurmAllocation allocation = read_slurm_allocation(env);
      apply_slurm_allocation(plan, allocation);
      hints = NodeHints{allocation.node_name, std::nullopt};
      say("slurm: job " + allocation.job_id + ", " + std::to_string(allocation.nodes.size()) +
          " node(s); this is " + allocation.node_name + "; coordinator at " +
          plan.coordinator.address + ":" + std::to_string(plan.coordinator.port) + took(t));
    } catch (const std::invalid_argument& e) {
      return fail(std::string("--slurm: ") + e.what());
    }
  }

  t = Clock::now();
  try {
    std::string how;
    const LocalIdentity local = local_identity();
    const Host* spare = in_job ? identify_spare(plan, hints, local) : nullptr;
    if (spare != nullptr) {
      run.node = spare->name;
      run.placement = nullptr;
      say("node: " + spare->name + " is a spare: it waits to replace a node" + took(t));
    } else {
      run.placement = &identify_node(plan, hints, local, &how);
      run.node = run.placement->host.name;
      say("node: " + run.node + " runs " + run.placement->role + "-" +
          std::to_string(run.placement->index) + " (by " + how + ")" + took(t));
    }
  } catch (const NodeError& e) {
    return fail(e.what());
  }
  const std::string instance =
      run.placement != nullptr
          ? run.placement->role + "-" + std::to_string(run.placement->index)
          : "spare-" + run.node;

  run.token_file = options.token_file;
  if (run.token_file.empty() && in_job) {
    const auto beside = std::filesystem::path(options.plan_path).parent_path() / "job.token";
    run.token_file = beside.string();
    if (!std::filesystem::exists(beside)) {
      return fail("a multi-node job needs the job token: pass --token-file (looked for " +
                  beside.string() + ")");
    }
  }
  if (!run.token_file.empty()) {
    std::string error;
    if (read_token(run.token_file, &error).empty()) return fail(error);
  }

  t = Clock::now();
  run.log_dir = options.log_dir.empty() ? default_log_dir(plan, options.plan_path) : options.log_dir;
  if (std::string why = make_dirs(run.log_dir + "/" + instance, 0755); !why.empty()) {
    return fail("cannot write logs to " + run.log_dir + ": " + why);
  }
  try {
    run.events = std::make_unique<EventLog>(run.log_dir + "/" + instance + "/events.jsonl");
  } catch (const std::system_error& e) {
    return fail("cannot write logs to " + run.log_dir + ": " + e.code().message());
  }
  say("logs: " + run.log_dir + "/" + instance + took(t));

  const Role* role = run.placement != nullptr ? find_role(plan, run.placement->role) : nullptr;
  run.events->record("launcher-started",
                     {{"job", plan.name},
                      {"node", run.node},
                      {"instance", instance},
                      {"processes", static_cast<std::int64_t>(role ? role->nproc_per_node : 0)},
                      {"pid", static_cast<std::int64_t>(getpid())}});

  run.control_dir = options.control_root + "/" + plan.name;
  if (std::string why = make_dirs(run.control_dir, 0700); !why.empty()) {
    return fail("cannot create the control socket directory " + run.control_dir + ": " + why);
  }
  if (in_job) {
    // Launchers of several nodes may share this machine (and the folder): theirs stays.
    return run_in_job(run, options, start);
  }
  const int code = run_alone(run, options, start);
  // Empty once the supervisor removed its socket; a peer launcher's socket keeps it.
  ::rmdir(run.control_dir.c_str());
  return code;
}

}  // namespace pai::launcher
