#include "launcher/run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "launcher/event_log.h"
#include "launcher/log_relay.h"
#include "launcher/node_identity.h"
#include "launcher/signals.h"
#include "launcher/supervisor.h"
#include "libpai/plan_json.h"

#include "launcher/checks/sanity_checks.h"

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

std::string default_log_dir(const Plan& plan, const std::string& plan_path) {
  if (!plan.output.empty()) return plan.output + "/logs";
  std::filesystem::path dir = std::filesystem::path(plan_path).parent_path();
  return (dir.empty() ? std::filesystem::path(".") : dir).string() + "/logs";
}

}  // namespace

int run_command(const RunOptions& options) {
  block_consumed_signals();
  const auto start = Clock::now();

  auto t = Clock::now();
  Plan plan;
  try {
    plan = load_plan_file(options.plan_path);
  } catch (const PlanError& e) {
    return fail(e.what());
  }
  say("plan: job '" + plan.name + "' from " + options.plan_path + " (" + plan.compiler + ", " +
      std::to_string(plan.nodes) + " instance(s), " + std::to_string(plan.world_size) +
      " process(es))" + took(t));

  t = Clock::now();
  const Placement* placement = nullptr;
  try {
    std::string how;
    placement =
        &identify_node(plan, NodeHints{options.node, options.node_rank}, local_identity(), &how);
    say("node: " + placement->host.name + " runs " + placement->role + "-" +
        std::to_string(placement->index) + " (by " + how + ")" + took(t));
  } catch (const NodeError& e) {
    return fail(e.what());
  }
  const Role& role = *find_role(plan, placement->role);
  const std::string instance = placement->role + "-" + std::to_string(placement->index);

  if (!options.token_file.empty()) {
    std::ifstream token(options.token_file);
    std::string secret;
    if (!token || !std::getline(token, secret) || secret.empty()) {
      return fail("cannot read the job token from " + options.token_file +
                  (token ? ": it is empty" : ": " + std::string(std::strerror(errno))));
    }
  }

  t = Clock::now();
  const std::string log_dir =
      options.log_dir.empty() ? default_log_dir(plan, options.plan_path) : options.log_dir;
  std::unique_ptr<EventLog> events;
  if (std::string why = make_dirs(log_dir + "/" + instance, 0755); !why.empty()) {
    return fail("cannot write logs to " + log_dir + ": " + why);
  }
  try {
    events = std::make_unique<EventLog>(log_dir + "/" + instance + "/events.jsonl");
  } catch (const std::system_error& e) {
    return fail("cannot write logs to " + log_dir + ": " + e.code().message());
  }
  say("logs: " + log_dir + "/" + instance + took(t));

  events->record("launcher-started", {{"job", plan.name},
                                      {"node", placement->host.name},
                                      {"instance", instance},
                                      {"processes", static_cast<std::int64_t>(role.nproc_per_node)},
                                      {"pid", static_cast<std::int64_t>(getpid())}});

  if (plan.sanity_check.enabled) {
    t = Clock::now();
    const auto results = checks::run_sanity_checks(plan, *placement, checks::CheckOptions{});
    for (const auto& result : results) {
      events->record("check", {{"name", result.name},
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
      events->record("job-failed", {{"job", plan.name},
                                    {"reason", std::string("sanity checks failed")},
                                    {"exitCode", std::int64_t{1}}});
      say("error: sanity checks failed on " + placement->host.name + "; nothing was started" +
          took(t));
      return 1;
    }
    say("sanity checks: passed" + took(t));
  }

  const std::string control_dir = options.control_root + "/" + plan.name;
  if (std::string why = make_dirs(control_dir, 0700); !why.empty()) {
    return fail("cannot create the control socket directory " + control_dir + ": " + why);
  }
  SupervisorOptions supervisor_options;
  supervisor_options.log_dir = log_dir;
  supervisor_options.control_dir = control_dir;
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
                                              supervisor_options, *events);
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
  // Empty once the supervisor removed its socket; a peer launcher's socket keeps it.
  ::rmdir(control_dir.c_str());
  say("done: exit code " + std::to_string(code) + took(start));
  return code;
}

}  // namespace pai::launcher
