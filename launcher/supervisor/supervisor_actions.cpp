#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/logs/output_writers.h"
#include "launcher/logs/rank_log_files.h"
#include "launcher/os/caught_signals.h"
#include "launcher/os/fd.h"
#include "launcher/os/process.h"
#include "launcher/policy/failure_classifier.h"
#include "launcher/supervisor/error_file.h"
#include "launcher/supervisor/failure_summary.h"
#include "launcher/supervisor/latest_checkpoint.h"
#include "launcher/supervisor/supervisor_impl.h"
#include "libpai/duration.h"
#include "libpai/env_contract.h"
#include "libpai/port_range_hint.h"

extern char** environ;

namespace pai::launcher {

namespace {

// PAI_USER_NAME: the user the ranks run as (OpenPAI's "user who submitted the job").
std::string current_user_name() {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
    return found->pw_name;
  }
  return std::to_string(geteuid());
}

// How long stack dumps (SIGQUIT/SIGUSR1 or the dump command) get before the stop signal.
constexpr auto kStackDumpWindow = std::chrono::seconds(3);
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

void Supervisor::Impl::drain() {
  draining = true;
  while (!pending.empty()) {
    const std::vector<PolicyAction> actions =
        hooks != nullptr ? hooks->decide(pending.front()) : policy.on(pending.front());
    pending.pop_front();
    // Once finishing, the end is decided: nothing restarts and the exit code stays.
    if (finishing) continue;
    for (const PolicyAction& action : actions) execute(action);
  }
  draining = false;
}

void Supervisor::Impl::execute(const PolicyAction& action) {
  if (const auto* a = std::get_if<StartInstance>(&action))
    return start_instance(a->instance, a->restart_count);
  if (const auto* a = std::get_if<StopInstance>(&action)) return stop_instance(*a);
  if (const auto* a = std::get_if<ScheduleRestart>(&action)) {
    Instance& inst = instances[a->instance];
    events.record(journal::Restart{.instance = inst.name,
                                   .attempt = a->restart_count,
                                   .backoff_seconds = a->delay_seconds,
                                   .reason = a->reason});
    say("restarting " + inst.name + " in " + std::to_string(a->delay_seconds) + "s (attempt " +
        std::to_string(a->restart_count) + "): " + a->reason);
    inst.restart_at = Clock::now() + std::chrono::seconds(a->delay_seconds);
    return;
  }
  if (const auto* a = std::get_if<FailJob>(&action)) return fail_job(*a);
  if (const auto* a = std::get_if<CancelJob>(&action)) {
    events.record(
        journal::JobCancelled{.job = plan.name, .reason = a->reason, .exit_code = a->exit_code});
    say("job '" + plan.name + "' cancelled: " + a->reason);
    exit_code = a->exit_code;
    done = true;
    return;
  }
  events.record(journal::JobSucceeded{.job = plan.name});
  say("job '" + plan.name + "' succeeded");
  exit_code = 0;
  done = true;
}

bool Supervisor::Impl::serve_store(const Instance& inst) {
  if (store || plan.master_store != MasterStore::Launcher || placement_of(inst).first_rank != 0) {
    return true;
  }
  const std::string where = plan.master.address + ":" + std::to_string(plan.master.port);
  try {
    store = std::make_unique<store::StoreServer>(
        store::StoreServerOptions{.address = plan.master.address, .port = plan.master.port});
  } catch (const std::runtime_error& e) {
    const std::string why = std::string(e.what()) + " (" + port_range_hint(plan) + ")";
    say("error: " + why);
    give_up(1, why);
    return false;
  }
  events.record(journal::StoreServing{.address = where});
  return true;
}

void Supervisor::Impl::report_store_incidents() {
  if (!store) return;
  for (const store::StoreIncident& incident : store->take_incidents()) {
    say("warning: the ranks' store closed " +
        (incident.client.empty() ? std::string("clients") : incident.client) + ": " +
        incident.error);
    events.record(journal::StoreClientClosed{.client = incident.client, .error = incident.error});
  }
}

EnvList Supervisor::Impl::launcher_environment() {
  EnvList base;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos) base.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return base;
}

void Supervisor::Impl::start_instance(int i, int attempt) {
  Instance& inst = instances[i];
  const Role& role = *inst.role;
  const auto t0 = Clock::now();
  events.record(
      journal::Start{.instance = inst.name, .attempt = attempt, .processes = role.nproc_per_node});
  inst.ranks.clear();
  inst.ranks.resize(role.nproc_per_node);
  inst.pgid = 0;
  inst.live = 0;
  inst.request_at_start = advised_request;
  inst.stopping = false;
  inst.restart_at.reset();
  inst.signal_at.reset();
  inst.dumps_until.reset();
  inst.kill_at.reset();
  inst.checkpoints_saving.clear();
  inst.hang.start(t0);
  inst.attempt = attempt;
  if (!serve_store(inst)) return;

  ProcessContext ctx;
  ctx.restart_count = attempt;
  ctx.control_socket = inst.control_path;
  ctx.hostfile = options.hostfile;
  ctx.rsh_agent = options.rsh_agent;
  ctx.coordinator = options.coordinator;
  ctx.token_file = options.token_file;
  ctx.latest_checkpoint = latest_checkpoint(plan.output);
  ctx.nccl_profiler = options.nccl_profiler;
  ctx.user_name = current_user_name();
  const EnvList base = launcher_environment();

  const bool warm = is_warm_role(inst);
  std::vector<SpawnRequest> warm_requests;  // each slot's, for its warm interpreter
  for (int r = 0; r < role.nproc_per_node; ++r) {
    Rank& rank = inst.ranks[r];
    rank.local_rank = r;
    rank.global_rank = placement_of(inst).first_rank + r;
    // The stacks of its past attempt name nobody now.
    if (stack_verdicts.erase(rank.global_rank) > 0) stack_culprit.clear();
    rank.log_path = inst.log_dir + "/" + rank_log_name(rank.global_rank, attempt);
    const std::string prefix = "[" + inst.name + "/" + std::to_string(rank.global_rank) + "]";
    create_telemetry_files_of(inst, rank);
    ctx.telemetry_file = rank.telemetry_path;
    ctx.telemetry_peers_file = rank.peers_path;
    if (role.env_convention == EnvConvention::Torchrun) {
      // A file left by an earlier run in this log folder must not be taken for this rank's.
      rank.error_path =
          inst.log_dir + "/" + rank_log_name(rank.global_rank, attempt, ".error.json");
      ::unlink(rank.error_path.c_str());
      ctx.error_file = rank.error_path;
    }
    std::string problem;
    ExitStatus failed_start{126, 0};
    try {
      Terminal shown = terminal;
      if (r < static_cast<int>(options.console.size())) {
        // A stream kept off the terminal still goes to the log file (torchrun's --redirects).
        if (!options.console[r].out) shown.stdout_fd = -1;
        if (!options.console[r].err) shown.stderr_fd = -1;
      }
      rank.output = std::make_unique<RankOutput>(
          rank.log_path, prefix, inst.name + " rank " + std::to_string(rank.global_rank),
          rank.global_rank, shown, static_cast<std::uint64_t>(plan.logs.max_bytes));
      SpawnRequest request;
      request.argv = role.launch_argv;
      request.env = base;
      for (auto& kv : process_env(plan, placement_of(inst), r, ctx)) {
        request.env.push_back(std::move(kv));
      }
      rank.gpu_env.clear();
      for (const auto& kv : request.env) {
        if (kv.first == "CUDA_VISIBLE_DEVICES" || kv.first == "CUDA_DEVICE_ORDER") {
          rank.gpu_env.push_back(kv);
        }
      }
      request.working_dir = role.working_dir;
      request.process_group = inst.pgid;
      request.stdout_fd = rank.output->child_stdout();
      request.stderr_fd = rank.output->child_stderr();
      request.cgroup_procs_fd = containment->open_rank(inst.name, r);
      try {
        std::optional<int> forked;
        if (warm) forked = start_warm(inst, rank, request);
        rank.warm = forked.has_value();
        rank.pid = forked ? *forked : spawn_process(request);
      } catch (...) {
        close_fd(request.cgroup_procs_fd);
        throw;
      }
      close_fd(request.cgroup_procs_fd);
      if (warm) {
        request.cgroup_procs_fd = -1;
        request.stdout_fd = request.stderr_fd = -1;
        warm_requests.push_back(std::move(request));
      }
    } catch (const SpawnError& e) {
      problem = e.what();
      failed_start.code = e.exit_code();
    } catch (const DescriptorsExhausted& e) {
      // The launcher's limit, not the rank's failure: what started is stopped, the launcher
      // exits 2 (a setup error), and no restart can do better. The reserve first: stopping,
      // journaling and reporting need descriptors.
      descriptor_reserve.release();
      say("error: " + inst.name + " rank " + std::to_string(rank.global_rank) + ": " + e.what());
      if (rank.output) rank.output->close();
      rank.output.reset();
      events.record(
          journal::SpawnFailed{.instance = inst.name, .rank = rank.global_rank, .error = e.what()});
      inst.ranks.resize(r);
      give_up(2, "out of file descriptors starting " + inst.name + " rank " +
                     std::to_string(rank.global_rank) + ": " + e.what());
      return;
    } catch (const std::runtime_error& e) {
      problem = e.what();
    }
    if (!problem.empty()) {
      say("error: " + inst.name + " rank " + std::to_string(rank.global_rank) + ": " + problem);
      if (rank.output) {
        rank.output->note("pai-launch: " + problem + "\n");
        rank.output->close();
      }
      events.record(
          journal::SpawnFailed{.instance = inst.name, .rank = rank.global_rank, .error = problem});
      Classification c = classify_failure(failed_start, "", plan.fault_tolerance.policy, {});
      push(ProcessExited{i, r, failed_start, c});
      break;
    }
    rank.output->close_child_ends();
    rank.output->watch(loop, [this, i, r] {
      instances[i].hang.activity(Clock::now());
      if (hooks != nullptr) hooks->on_output(i, r);
    });
    if (inst.pgid == 0) inst.pgid = rank.pid;
    ++inst.live;
    by_pid[rank.pid] = {i, r};
    if (!rank.telemetry_path.empty()) {
      rank.telemetry = std::make_unique<RankTelemetry>(rank.telemetry_path, rank.global_rank,
                                                       Clock::now(), rank.peers_path);
    }
    events.record(
        journal::ProcessStarted{.instance = inst.name,
                                .rank = rank.global_rank,
                                .pid = rank.pid,
                                .log = rank.log_path,
                                .warm = warm ? std::optional<bool>(rank.warm) : std::nullopt});
  }
  // After the ranks: the interpreters import while the ranks start.
  if (warm && !warm_requests.empty()) warm_up(i, warm_requests);
  if (inst.live > 0) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f ms", ms);
    say("started " + inst.name + " attempt " + std::to_string(attempt) + ": " +
        std::to_string(inst.live) + " process(es) in " + buf);
  } else {
    push(InstanceStopped{i});
  }
}

void Supervisor::Impl::signal_group(const Instance& inst, int sig) {
  if (inst.pgid > 0) ::kill(-inst.pgid, sig);
  // SIGKILL ends the instance: what left its group goes too.
  if (sig == SIGKILL && containment) containment->kill(inst.name);
}

void Supervisor::Impl::stop_instance(const StopInstance& a) {
  Instance& inst = instances[a.instance];
  // A rank the drill stopped would not see the stop signal.
  end_fault(inst, "the instance is stopping");
  events.record(journal::Stop{
      .instance = inst.name, .signal = a.signal, .dump_stacks = a.dump_stacks, .reason = a.reason});
  inst.hang.stop();
  if (inst.live == 0) return;
  inst.stopping = true;
  inst.stop_signal = a.signal;
  const auto now = Clock::now();
  auto signal_at = now;
  if (a.dump_stacks) {
    inst.dumps_until =
        now + std::min<Clock::duration>(
                  kStackDumpWindow, std::chrono::seconds(plan.fault_tolerance.grace_period_seconds));
    start_forensics(a.instance, now, *inst.dumps_until);
    signal_at = *inst.dumps_until;
  }
  const std::int64_t wait = plan.fault_tolerance.checkpoint_wait_seconds;
  if (!inst.checkpoints_saving.empty() && a.signal != SIGKILL && wait > 0) {
    // A checkpoint being written is what the next attempt resumes from: let it finish.
    std::int64_t step = 0;
    for (const auto& saving : inst.checkpoints_saving) step = std::max(step, saving.step);
    events.record(journal::CheckpointWait{.instance = inst.name, .step = step, .seconds = wait});
    say(inst.name + ": waiting up to " + format_duration(wait) + " for the checkpoint of step " +
        std::to_string(step) + " before stopping");
    signal_at = std::max(signal_at, now + std::chrono::seconds(wait));
  }
  if (signal_at > now) {
    inst.signal_at = signal_at;
    return;
  }
  send_stop_signal(inst);
}

void Supervisor::Impl::send_stop_signal(Instance& inst) {
  inst.signal_at.reset();
  inst.dumps_until.reset();
  signal_group(inst, inst.stop_signal);
  // A stopped (SIGSTOP) process acts on SIGTERM only once continued.
  signal_group(inst, SIGCONT);
  if (inst.stop_signal != SIGKILL && !inst.kill_at) {
    inst.kill_at = Clock::now() + std::chrono::seconds(plan.fault_tolerance.grace_period_seconds);
  }
}

void Supervisor::Impl::dump_stacks(Instance& inst) {
  const std::string& command = plan.fault_tolerance.hang.dump_command;
  if (command.empty()) {
    // Only to processes that catch them: by default SIGUSR1 kills and SIGQUIT dumps core.
    const int quit = inst.pgid > 0 ? signal_catchers(inst.pgid, SIGQUIT) : 0;
    const int usr1 = inst.pgid > 0 ? signal_catchers(inst.pgid, SIGUSR1) : 0;
    events.record(journal::StackDump{
        .instance = inst.name, .method = "SIGQUIT, SIGUSR1", .sigquit = quit, .sigusr1 = usr1});
    if (quit + usr1 == 0) {
      say(inst.name + ": no process catches SIGUSR1 or SIGQUIT, so no stacks were asked for (the "
                      "pai SDK registers faulthandler; or set hang.dumpCommand, e.g. 'py-spy dump "
                      "--pid {pid}')");
    }
    return;
  }
  const std::string leader = std::to_string(inst.ranks.empty() ? 0 : inst.ranks[0].pid);
  std::string cmd =
      replace_all(replace_all(command, "{pid}", leader), "{pgid}", std::to_string(inst.pgid));
  events.record(journal::StackDump{.instance = inst.name, .command = cmd});
  SpawnRequest request;
  request.argv = {"/bin/sh", "-c", cmd};
  request.stdout_fd = options.terminal_stderr;
  request.stderr_fd = options.terminal_stderr;
  try {
    spawn_process(request);  // reaped by the loop as an unknown child
  } catch (const SpawnError& e) {
    say(std::string("warning: stack dump command failed: ") + e.what());
  }
}

FailureReport Supervisor::Impl::failure_report(const FailJob& f) const {
  FailureReport report;
  report.job = plan.name;
  report.reason = f.reason;
  report.classification = f.classification;
  if (f.instance >= 0) {
    const Instance& inst = instances[f.instance];
    report.instance = inst.name;
    const int r = std::max(f.local_rank, 0);
    if (r < static_cast<int>(inst.ranks.size())) {
      const Rank& rank = inst.ranks[r];
      if (f.local_rank >= 0) {
        report.rank = rank.global_rank;
        report.local_rank = f.local_rank;
        report.status = describe(f.status);
      }
      if (rank.output) report.last_lines = rank.output->tail().last_lines(kSummaryLogLines);
      report.log_path = rank.log_path;
      if (f.local_rank >= 0 && !rank.error_path.empty()) {
        if (const auto error = read_error_file(rank.error_path)) {
          report.error_message = error->message;
          report.error_traceback = error->traceback;
        }
      }
    }
  }
  report.culprit = stack_culprit;
  return report;
}

void Supervisor::Impl::fail_job(const FailJob& f) {
  const FailureReport report = failure_report(f);
  events.record(journal::JobFailed{.job = plan.name,
                                   .reason = f.reason,
                                   .exit_code = f.exit_code,
                                   .rank = report.rank,
                                   .matched_line = f.classification.matched_line});
  terminal_say(options.terminal_stderr, format_failure_summary(report));
  exit_code = f.exit_code;
  done = true;
}

void Supervisor::Impl::give_up(int code, const std::string& reason) {
  if (hooks != nullptr && !finishing) hooks->gave_up(code, reason);
  finish(code, reason);
}

void Supervisor::Impl::finish(int code, const std::string& reason) {
  if (finishing) {
    // A second request: no more grace.
    for (const Instance& inst : instances) signal_group(inst, SIGKILL);
    return;
  }
  finishing = true;
  exit_code = code;
  events.record(journal::Finish{.exit_code = code, .reason = reason});
  for (int i = 0; i < static_cast<int>(instances.size()); ++i) {
    if (instances[i].live > 0 && !instances[i].stopping) {
      stop_instance(StopInstance{i, SIGTERM, false, reason});
    }
  }
  settle_finish();
}

void Supervisor::Impl::settle_finish() {
  for (const Instance& inst : instances) {
    if (inst.live > 0) return;
  }
  done = true;
}

}  // namespace pai::launcher
