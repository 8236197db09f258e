#include "launcher/supervisor.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <optional>
#include <system_error>
#include <unordered_map>

#include "launcher/control_socket.h"
#include "launcher/event_loop.h"
#include "launcher/failure_summary.h"
#include "launcher/hang_watch.h"
#include "launcher/log_relay.h"
#include "launcher/process.h"
#include "launcher/rank_output.h"
#include "launcher/restart_policy.h"
#include "launcher/signals.h"
#include "libpai/env_contract.h"

extern char** environ;

namespace pai::launcher {

namespace {

using Clock = std::chrono::steady_clock;

// How long stack dumps (SIGQUIT/SIGUSR1 or the dump command) get before the stop signal.
constexpr auto kStackDumpWindow = std::chrono::seconds(3);
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

struct Supervisor::Impl {
  struct Rank {
    int local_rank = 0;
    int global_rank = 0;
    int pid = 0;
    std::string log_path;
    std::unique_ptr<RankOutput> output;  // null when it could not be created
  };
  struct Instance {
    Instance(int p, const Placement& pl, const Role* r, HangWatch watch)
        : placement_index(p), role(r), name(pl.role + "-" + std::to_string(pl.index)), hang(watch) {}
    int placement_index = 0;  // into plan.placements, which a re-placement may rebuild
    const Role* role = nullptr;
    std::string name;
    std::string log_dir;
    std::vector<Rank> ranks;
    int pgid = 0;
    int live = 0;
    HangWatch hang;
    std::unique_ptr<ControlServer> control;
    std::string control_path;
    std::int64_t last_step = -1;
    int stop_signal = SIGTERM;
    bool stopping = false;  // a StopInstance is in progress: exits are expected
    std::optional<Clock::time_point> signal_at;  // after the stack-dump window
    std::optional<Clock::time_point> kill_at;    // grace period over
    std::optional<Clock::time_point> restart_at;
  };

  const Plan& plan;
  SupervisorOptions options;
  EventLog& events;
  SupervisorHooks* hooks;
  EventLoop loop;
  SignalFd signals;
  std::vector<Instance> instances;
  RestartPolicyMachine policy;
  std::unordered_map<int, std::pair<int, int>> by_pid;  // pid -> (instance, rank index)
  std::deque<PolicyEvent> pending;
  bool draining = false;
  bool done = false;
  int exit_code = 1;
  bool finishing = false;  // finish() was called: run() ends once nothing runs
  bool job_wide_hangs = false;
  bool reap_known_only = false;
  Terminal terminal;

  Impl(const Plan& p, std::vector<const Placement*> placements, SupervisorOptions o, EventLog& e,
       SupervisorHooks* h)
      : plan(p),
        options(std::move(o)),
        events(e),
        hooks(h),
        policy(p.fault_tolerance, governed(p, placements), p.nodes),
        terminal{options.terminal_stdout, options.terminal_stderr,
                 isatty(options.terminal_stdout) == 1, isatty(options.terminal_stderr) == 1} {
    for (const Placement* placement : placements) {
      add_instance(static_cast<int>(placement - plan.placements.data()));
    }
  }

  // Adds the instance of plan.placements[index] and opens its control socket.
  int add_instance(int index) {
    const auto& hang = plan.fault_tolerance.hang;
    const Placement& placement = plan.placements.at(index);
    Instance inst(index, placement, find_role(plan, placement.role),
                  HangWatch(hang.enabled, hang.interval_seconds, hang.exit_interval_seconds));
    inst.hang.set_silence_verdicts(!job_wide_hangs);
    inst.log_dir = options.log_dir + "/" + inst.name;
    instances.push_back(std::move(inst));
    const int i = static_cast<int>(instances.size()) - 1;
    open_control_socket(i);
    return i;
  }

  const Placement& placement_of(const Instance& inst) const {
    return plan.placements.at(inst.placement_index);
  }

  // Also on an exception out of run(): nothing it started may outlive the supervisor.
  ~Impl() { sweep(); }

  static std::vector<GovernedInstance> governed(const Plan& p,
                                                const std::vector<const Placement*>& placements) {
    std::vector<GovernedInstance> out;
    for (const Placement* pl : placements) {
      const Role* role = find_role(p, pl->role);
      out.push_back(GovernedInstance{pl->role, pl->index, role->nproc_per_node, role->completion});
    }
    return out;
  }

  void say(const std::string& text) {
    write_all(options.terminal_stderr, "pai-launch: " + text + "\n");
  }

  // ---- setup ----

  void open_control_socket(int i) {
    if (options.control_dir.empty()) return;
    Instance& inst = instances[i];
    inst.control_path = options.control_dir + "/" + inst.name + ".sock";
    inst.control = std::make_unique<ControlServer>(
        inst.control_path, loop, [this, i](const ControlRequest& r) { return on_control(i, r); });
  }

  std::string on_control(int i, const ControlRequest& request) {
    Instance& inst = instances[i];
    if (const auto* n = std::get_if<NotifyRequest>(&request)) {
      events.record("notify", {{"instance", inst.name}, {"message", n->text}});
      say(inst.name + ": notify: " + n->text);
    } else if (const auto* p = std::get_if<ProgressRequest>(&request)) {
      inst.last_step = p->step;
      inst.hang.activity(Clock::now());
    } else if (const auto* h = std::get_if<HangIntervalRequest>(&request)) {
      inst.hang.set_interval(h->seconds);
      inst.hang.activity(Clock::now());
      events.record("hang-interval", {{"instance", inst.name},
                                      {"seconds", static_cast<std::int64_t>(inst.hang.interval())},
                                      {"default", h->seconds == 0}});
    }
    return "";
  }

  // ---- actions ----

  // Events raised while actions run are queued, so each is decided after the previous
  // decision was fully carried out.
  template <class Event>
  void push(Event event) {
    pending.emplace_back(std::in_place_type<Event>, std::move(event));
    if (!draining) drain();
  }

  void drain() {
    draining = true;
    while (!pending.empty()) {
      const std::vector<PolicyAction> actions =
          hooks != nullptr ? hooks->decide(pending.front()) : policy.on(pending.front());
      pending.pop_front();
      for (const PolicyAction& action : actions) execute(action);
    }
    draining = false;
  }

  void execute(const PolicyAction& action) {
    if (const auto* a = std::get_if<StartInstance>(&action))
      return start_instance(a->instance, a->restart_count);
    if (const auto* a = std::get_if<StopInstance>(&action)) return stop_instance(*a);
    if (const auto* a = std::get_if<ScheduleRestart>(&action)) {
      Instance& inst = instances[a->instance];
      events.record("restart", {{"instance", inst.name},
                                {"attempt", static_cast<std::int64_t>(a->restart_count)},
                                {"backoffSeconds", a->delay_seconds},
                                {"reason", a->reason}});
      say("restarting " + inst.name + " in " + std::to_string(a->delay_seconds) + "s (attempt " +
          std::to_string(a->restart_count) + "): " + a->reason);
      inst.restart_at = Clock::now() + std::chrono::seconds(a->delay_seconds);
      return;
    }
    if (const auto* a = std::get_if<FailJob>(&action)) return fail_job(*a);
    events.record("job-succeeded", {{"job", plan.name}});
    say("job '" + plan.name + "' succeeded");
    exit_code = 0;
    done = true;
  }

  void start_instance(int i, int attempt) {
    Instance& inst = instances[i];
    const Role& role = *inst.role;
    const auto t0 = Clock::now();
    events.record("start", {{"instance", inst.name},
                            {"attempt", static_cast<std::int64_t>(attempt)},
                            {"processes", static_cast<std::int64_t>(role.nproc_per_node)}});
    inst.ranks.clear();
    inst.ranks.resize(role.nproc_per_node);
    inst.pgid = 0;
    inst.live = 0;
    inst.stopping = false;
    inst.restart_at.reset();
    inst.signal_at.reset();
    inst.kill_at.reset();
    inst.hang.start(t0);

    ProcessContext ctx;
    ctx.restart_count = attempt;
    ctx.control_socket = inst.control_path;
    ctx.hostfile = options.hostfile;
    ctx.rsh_agent = options.rsh_agent;
    ctx.coordinator = options.coordinator;
    ctx.token_file = options.token_file;
    EnvList base;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string_view entry(*e);
      std::size_t eq = entry.find('=');
      if (eq != std::string_view::npos)
        base.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
    }

    for (int r = 0; r < role.nproc_per_node; ++r) {
      Rank& rank = inst.ranks[r];
      rank.local_rank = r;
      rank.global_rank = placement_of(inst).first_rank + r;
      rank.log_path = inst.log_dir + "/rank-" + std::to_string(rank.global_rank) + ".attempt-" +
                      std::to_string(attempt) + ".log";
      const std::string prefix = "[" + inst.name + "/" + std::to_string(rank.global_rank) + "]";
      std::string problem;
      ExitStatus failed_start{126, 0};
      try {
        rank.output =
            std::make_unique<RankOutput>(rank.log_path, prefix, rank.global_rank, terminal);
        SpawnRequest request;
        request.argv = role.launch_argv;
        request.env = base;
        for (auto& kv : process_env(plan, placement_of(inst), r, ctx)) {
          request.env.push_back(std::move(kv));
        }
        request.working_dir = role.working_dir;
        request.process_group = inst.pgid;
        request.stdout_fd = rank.output->child_stdout();
        request.stderr_fd = rank.output->child_stderr();
        rank.pid = spawn_process(request);
      } catch (const SpawnError& e) {
        problem = e.what();
        failed_start.code = e.exit_code();
      } catch (const std::runtime_error& e) {
        problem = e.what();
      }
      if (!problem.empty()) {
        say("error: " + inst.name + " rank " + std::to_string(rank.global_rank) + ": " + problem);
        if (rank.output) {
          rank.output->note("pai-launch: " + problem + "\n");
          rank.output->close();
        }
        events.record("spawn-failed", {{"instance", inst.name},
                                       {"rank", static_cast<std::int64_t>(rank.global_rank)},
                                       {"error", problem}});
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
      events.record("process-started", {{"instance", inst.name},
                                        {"rank", static_cast<std::int64_t>(rank.global_rank)},
                                        {"pid", static_cast<std::int64_t>(rank.pid)},
                                        {"log", rank.log_path}});
    }
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

  void signal_group(const Instance& inst, int sig) {
    if (inst.pgid > 0) ::kill(-inst.pgid, sig);
  }

  void stop_instance(const StopInstance& a) {
    Instance& inst = instances[a.instance];
    events.record("stop", {{"instance", inst.name},
                           {"signal", static_cast<std::int64_t>(a.signal)},
                           {"dumpStacks", a.dump_stacks},
                           {"reason", a.reason}});
    inst.hang.stop();
    if (inst.live == 0) return;
    inst.stopping = true;
    inst.stop_signal = a.signal;
    if (a.dump_stacks) {
      dump_stacks(inst);
      inst.signal_at =
          Clock::now() +
          std::min<Clock::duration>(
              kStackDumpWindow, std::chrono::seconds(plan.fault_tolerance.grace_period_seconds));
      return;
    }
    send_stop_signal(inst);
  }

  void send_stop_signal(Instance& inst) {
    inst.signal_at.reset();
    signal_group(inst, inst.stop_signal);
    // A stopped (SIGSTOP) process acts on SIGTERM only once continued.
    signal_group(inst, SIGCONT);
    if (inst.stop_signal != SIGKILL && !inst.kill_at) {
      inst.kill_at = Clock::now() + std::chrono::seconds(plan.fault_tolerance.grace_period_seconds);
    }
  }

  void dump_stacks(Instance& inst) {
    const std::string& command = plan.fault_tolerance.hang.dump_command;
    if (command.empty()) {
      events.record("stack-dump",
                    {{"instance", inst.name}, {"method", std::string("SIGQUIT, SIGUSR1")}});
      signal_group(inst, SIGQUIT);
      signal_group(inst, SIGUSR1);
      return;
    }
    const std::string leader = std::to_string(inst.ranks.empty() ? 0 : inst.ranks[0].pid);
    std::string cmd =
        replace_all(replace_all(command, "{pid}", leader), "{pgid}", std::to_string(inst.pgid));
    events.record("stack-dump", {{"instance", inst.name}, {"command", cmd}});
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

  // The root-cause summary of a failure of `instance` (-1 = none) at `local_rank`.
  FailureReport failure_report(const FailJob& f) const {
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
      }
    }
    return report;
  }

  void fail_job(const FailJob& f) {
    const FailureReport report = failure_report(f);
    events.record("job-failed", {{"job", plan.name},
                                 {"reason", f.reason},
                                 {"exitCode", static_cast<std::int64_t>(f.exit_code)},
                                 {"rank", static_cast<std::int64_t>(report.rank)},
                                 {"matchedLine", f.classification.matched_line}});
    write_all(options.terminal_stderr, format_failure_summary(report));
    exit_code = f.exit_code;
    done = true;
  }

  // ---- events from the world ----

  void on_signals() {
    for (int sig; (sig = signals.read_signal()) != 0;) {
      if (sig == SIGCHLD) {
        reap();
        continue;
      }
      events.record("signal", {{"signal", static_cast<std::int64_t>(sig)}});
      say("received " + signal_name(sig) + ", stopping the job (grace period " +
          std::to_string(plan.fault_tolerance.grace_period_seconds) + "s)");
      push(StopRequested{sig});
    }
  }

  // The next ended child, or 0. While sanity checks wait for their own children in another
  // thread, only the supervisor's own pids are waited for.
  int next_exited(int* status) {
    if (!reap_known_only) return ::waitpid(-1, status, WNOHANG);
    for (const auto& [pid, where] : by_pid) {
      if (::waitpid(pid, status, WNOHANG) == pid) return pid;
    }
    return 0;
  }

  void reap() {
    for (;;) {
      int status = 0;
      const int pid = next_exited(&status);
      if (pid <= 0) return;
      auto it = by_pid.find(pid);
      if (it == by_pid.end()) {
        // An exec of the hooks, or a grandchild we adopted as subreaper.
        if (hooks != nullptr) hooks->on_child_exit(pid, status);
        continue;
      }
      auto [i, r] = it->second;
      by_pid.erase(it);
      Instance& inst = instances[i];
      Rank& rank = inst.ranks[r];
      --inst.live;
      const ExitStatus exit = ExitStatus::from_wait_status(status);
      // Whatever it wrote before dying is in the pipe: read it before judging the exit.
      rank.output->drain();
      Classification c;
      if (inst.stopping) {
        c.reason = "stopped by pai-launch";
      } else if (!exit.success()) {
        c = classify_failure(exit, rank.output->tail().text(), plan.fault_tolerance.policy,
                             plan.fault_tolerance.retryable_errors);
      } else if (inst.live > 0) {
        inst.hang.rank_succeeded(Clock::now());
      }
      events.record("exit", {{"instance", inst.name},
                             {"rank", static_cast<std::int64_t>(rank.global_rank)},
                             {"pid", static_cast<std::int64_t>(pid)},
                             {"status", describe(exit)},
                             {"exitCode", static_cast<std::int64_t>(exit.shell_code())},
                             {"retryable", c.retryable},
                             {"classification", c.reason},
                             {"matchedLine", c.matched_line}});
      if (hooks != nullptr && !inst.stopping && !exit.success()) {
        FailJob f{c.reason, 1, i, r, exit, c};
        hooks->failure_summary(i, rank.global_rank, format_failure_summary(failure_report(f)));
      }
      push(ProcessExited{i, r, exit, c});
      if (inst.live == 0) {
        for (Rank& each : inst.ranks) {
          if (each.output) each.output->close();
        }
        // Whatever the ranks left behind in their group goes with them.
        signal_group(inst, SIGKILL);
        inst.signal_at.reset();
        inst.kill_at.reset();
        inst.hang.stop();
        push(InstanceStopped{i});
        if (finishing) settle_finish();
      }
    }
  }

  // ---- finishing on request (multi-node) ----

  void finish(int code, const std::string& reason) {
    if (finishing) {
      // A second request: no more grace.
      for (const Instance& inst : instances) signal_group(inst, SIGKILL);
      return;
    }
    finishing = true;
    exit_code = code;
    events.record("finish", {{"exitCode", static_cast<std::int64_t>(code)}, {"reason", reason}});
    for (int i = 0; i < static_cast<int>(instances.size()); ++i) {
      if (instances[i].live > 0 && !instances[i].stopping) {
        stop_instance(StopInstance{i, SIGTERM, false, reason});
      }
    }
    settle_finish();
  }

  void settle_finish() {
    for (const Instance& inst : instances) {
      if (inst.live > 0) return;
    }
    done = true;
  }

  std::optional<Clock::time_point> next_deadline() const {
    std::optional<Clock::time_point> next;
    auto consider = [&](const std::optional<Clock::time_point>& t) {
      if (t && (!next || *t < *next)) next = t;
    };
    if (hooks != nullptr) consider(hooks->next_deadline());
    for (const Instance& inst : instances) {
      consider(inst.hang.deadline());
      consider(inst.signal_at);
      consider(inst.kill_at);
      consider(inst.restart_at);
    }
    return next;
  }

  void on_deadlines() {
    const auto now = Clock::now();
    if (hooks != nullptr) hooks->on_deadline(now);
    for (int i = 0; i < static_cast<int>(instances.size()); ++i) {
      Instance& inst = instances[i];
      if (inst.signal_at && *inst.signal_at <= now) send_stop_signal(inst);
      if (inst.kill_at && *inst.kill_at <= now) {
        inst.kill_at.reset();
        events.record("kill",
                      {{"instance", inst.name}, {"reason", std::string("grace period over")}});
        say(inst.name + ": grace period over, sending SIGKILL");
        signal_group(inst, SIGKILL);
      }
      if (inst.restart_at && *inst.restart_at <= now) {
        inst.restart_at.reset();
        push(BackoffElapsed{i});
      }
      const HangWatch::Verdict verdict = inst.hang.check(now);
      if (verdict != HangWatch::Verdict::Alive) {
        const bool exiting = verdict == HangWatch::Verdict::StuckExiting;
        const std::int64_t seconds = exiting ? inst.hang.exit_interval() : inst.hang.interval();
        Classification c = classify_hang(plan.fault_tolerance.policy, seconds, exiting);
        events.record("hang", {{"instance", inst.name},
                               {"seconds", seconds},
                               {"exiting", exiting},
                               {"lastStep", inst.last_step}});
        say(inst.name + ": " + c.reason);
        inst.hang.stop();
        push(HangDetected{i, c});
      }
    }
  }

  // Kills and reaps whatever is still around: adopted grandchildren that left their group.
  void sweep() {
    for (const Instance& inst : instances) signal_group(inst, SIGKILL);
    for (int round = 0; round < 50; ++round) {
      std::vector<int> children;
      if (DIR* tasks = opendir("/proc/self/task")) {
        while (dirent* t = readdir(tasks)) {
          if (t->d_name[0] == '.') continue;
          std::ifstream list(std::string("/proc/self/task/") + t->d_name + "/children");
          for (int pid; list >> pid;) children.push_back(pid);
        }
        closedir(tasks);
      }
      if (children.empty()) return;
      for (int pid : children) ::kill(pid, SIGKILL);
      for (int pid : children) ::waitpid(pid, nullptr, 0);
    }
  }

  int run() {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    loop.watch(signals.fd(), [this] { on_signals(); });
    draining = true;
    if (hooks == nullptr) {
      for (const PolicyAction& action : policy.start()) execute(action);
    }
    drain();
    while (!done) {
      int timeout = -1;
      if (auto next = next_deadline()) {
        auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - Clock::now()).count();
        timeout = static_cast<int>(std::clamp<long long>(ms, 0, 24 * 3600 * 1000));
      }
      loop.wait_once(timeout);
      if (!done) on_deadlines();
    }
    for (Instance& inst : instances) {
      for (Rank& rank : inst.ranks) {
        if (rank.output) rank.output->close();
      }
    }
    for (Instance& inst : instances) inst.control.reset();
    sweep();
    return exit_code;
  }
};

Supervisor::Supervisor(const Plan& plan, std::vector<const Placement*> instances,
                       SupervisorOptions options, EventLog& events, SupervisorHooks* hooks)
    : impl_(std::make_unique<Impl>(plan, std::move(instances), std::move(options), events, hooks)) {
}

Supervisor::~Supervisor() = default;

int Supervisor::run() { return impl_->run(); }

int Supervisor::add_instance(const Placement& placement) {
  return impl_->add_instance(static_cast<int>(&placement - impl_->plan.placements.data()));
}

void Supervisor::apply(const PolicyAction& action) {
  // Like a decision of the local policy: events it raises are decided after it.
  impl_->draining = true;
  impl_->execute(action);
  impl_->drain();
}

void Supervisor::kill_instance(int instance) {
  Impl::Instance& inst = impl_->instances.at(instance);
  impl_->events.record("kill", {{"instance", inst.name}, {"reason", std::string("pai-launch kill")}});
  impl_->signal_group(inst, SIGKILL);
}

void Supervisor::finish(int exit_code, const std::string& reason) {
  impl_->finish(exit_code, reason);
}

void Supervisor::set_job_wide_hangs(bool on) {
  impl_->job_wide_hangs = on;
  for (auto& inst : impl_->instances) inst.hang.set_silence_verdicts(!on);
}

std::vector<std::string> Supervisor::log_files(int instance) const {
  std::vector<std::string> out;
  for (const auto& rank : impl_->instances.at(instance).ranks) out.push_back(rank.log_path);
  return out;
}

InstanceActivity Supervisor::activity(int instance) const {
  const Impl::Instance& inst = impl_->instances.at(instance);
  InstanceActivity a;
  a.running = inst.live > 0;
  a.idle_ms = inst.hang.idle_ms(std::chrono::steady_clock::now());
  a.hang_interval = inst.hang.interval();
  a.step = inst.last_step;
  return a;
}

int Supervisor::instances() const { return static_cast<int>(impl_->instances.size()); }

void Supervisor::set_reap_known_only(bool on) {
  impl_->reap_known_only = on;
  if (!on) impl_->reap();
}

EventLoop& Supervisor::loop() { return impl_->loop; }

}  // namespace pai::launcher
