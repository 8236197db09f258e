#include <dirent.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "launcher/policy/failure_classifier.h"
#include "launcher/supervisor/failure_summary.h"
#include "launcher/os/process.h"
#include "launcher/supervisor/supervisor_impl.h"

namespace pai::launcher {

void Supervisor::Impl::on_signals() {
  for (int sig; (sig = signals.read_signal()) != 0;) {
    if (sig == SIGCHLD) {
      reap();
      continue;
    }
    events.record(journal::Signal{.signal = sig});
    say("received " + signal_name(sig) + ", stopping the job (grace period " +
        std::to_string(plan.fault_tolerance.grace_period_seconds) + "s)");
    push(StopRequested{sig});
  }
}

int Supervisor::Impl::next_exited(int* status) {
  if (reap_known_only == 0) return ::waitpid(-1, status, WNOHANG);
  for (const auto& [pid, where] : by_pid) {
    if (::waitpid(pid, status, WNOHANG) == pid) return pid;
  }
  // A drill's GPU burn is the supervisor's too: its end ends the fault.
  for (const Instance& inst : instances) {
    const int pid = inst.gpu_load ? inst.gpu_load->pid() : 0;
    if (pid > 0 && ::waitpid(pid, status, WNOHANG) == pid) return pid;
  }
  return 0;
}

void Supervisor::Impl::reap() {
  for (;;) {
    int status = 0;
    const int pid = next_exited(&status);
    if (pid <= 0) return;
    auto it = by_pid.find(pid);
    if (it == by_pid.end()) {
      // A stack tool of the forensics, an exec of the hooks, or a grandchild we adopted as
      // subreaper.
      if (forensics_child_exit(pid, status)) continue;
      if (warm_exited(pid, status)) continue;
      if (gpu_load_exited(pid, status)) continue;
      if (hooks != nullptr) hooks->on_child_exit(pid, status);
      continue;
    }
    auto [i, r] = it->second;
    by_pid.erase(it);
    Instance& inst = instances[i];
    Rank& rank = inst.ranks[r];
    --inst.live;
    if (inst.fault_rank == r) end_fault(inst, "the rank exited", /*gone=*/true);
    forget_saves_of(inst, rank.global_rank);
    const ExitStatus exit = ExitStatus::from_wait_status(status);
    // Whatever it wrote before dying is in the pipe: read it before judging the exit.
    rank.output->drain();
    Classification c;
    if (inst.stopping) {
      c.reason = "stopped by pai-launch";
    } else if (!exit.success()) {
      std::vector<std::string> patterns = plan.fault_tolerance.retryable_errors;
      patterns.insert(patterns.end(), added_retryable_errors.begin(),
                      added_retryable_errors.end());
      c = classify_failure(exit, rank.output->tail().text(), plan.fault_tolerance.policy,
                           patterns);
    } else if (inst.live > 0) {
      inst.hang.rank_succeeded(Clock::now());
    }
    // Its last step, as far as its telemetry got, before the exit that ends its pace.
    if (rank.telemetry) {
      if (const auto standing = rank.telemetry->standing(Clock::now())) {
        record_step(inst, rank.global_rank, rank.steps.sample(standing->step, Clock::now()));
      }
    }
    record_step(inst, rank.global_rank, rank.steps.last());
    journal::Exit record{.instance = inst.name,
                         .rank = rank.global_rank,
                         .pid = pid,
                         .status = describe(exit),
                         .exit_code = exit.shell_code()};
    if (const auto usage = containment->usage(inst.name, r)) {
      // The kernel's word beats a guess from the exit status: SIGKILL by the OOM killer.
      if (usage->oom_kills > 0 && !inst.stopping && !exit.success()) c = classify_oom_kill(exit);
      record.cpu_seconds = usage->cpu_seconds;
      record.memory_peak_bytes = usage->memory_peak_bytes;
    }
    record.retryable = c.retryable;
    record.classification = c.reason;
    record.matched_line = c.matched_line;
    if (const std::uint64_t dropped = rank.output->log_dropped(); dropped > 0) {
      record.log_dropped_bytes = static_cast<std::int64_t>(dropped);
    }
    // As far as the log writer got: a log file system stalled now may say more later, in the
    // log itself.
    if (std::string error = rank.output->log_error(); !error.empty()) {
      record.log_error = std::move(error);
    }
    if (const std::uint64_t unwritten = rank.output->log_unwritten(); unwritten > 0) {
      record.log_unwritten_bytes = static_cast<std::int64_t>(unwritten);
    }
    events.record(record);
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

auto Supervisor::Impl::next_deadline() const -> std::optional<Clock::time_point> {
  std::optional<Clock::time_point> next;
  auto consider = [&](const std::optional<Clock::time_point>& t) {
    if (t && (!next || *t < *next)) next = t;
  };
  if (hooks != nullptr) consider(hooks->next_deadline());
  if (hooks == nullptr) consider(telemetry_poll_at);
  for (const Instance& inst : instances) {
    if (inst.forensics) consider(inst.forensics->next_deadline());
    consider(inst.hang.deadline());
    consider(inst.signal_at);
    consider(inst.kill_at);
    consider(inst.restart_at);
    if (inst.fault) consider(inst.fault->next_deadline());
  }
  return next;
}

void Supervisor::Impl::on_deadlines() {
  const auto now = Clock::now();
  report_store_incidents();
  if (hooks != nullptr) hooks->on_deadline(now);
  if (hooks == nullptr && telemetry_poll_at <= now) {
    for (Instance& inst : instances) read_telemetry(inst, now, nullptr);
    telemetry_poll_at = now + kTelemetryPoll;
  }
  for (int i = 0; i < static_cast<int>(instances.size()); ++i) {
    Instance& inst = instances[i];
    // Before the stop signal due at the same time: the stacks are of the hang, not the stop.
    if (inst.forensics) {
      inst.forensics->on_deadline(now);
      if (inst.forensics->ready(now)) complete_forensics(i);
    }
    if (inst.fault && inst.fault->on_deadline(now)) {
      record_fault_over(inst, "its seconds passed");
      inst.fault.reset();
    }
    if (inst.signal_at && *inst.signal_at <= now) send_stop_signal(inst);
    if (inst.kill_at && *inst.kill_at <= now) {
      inst.kill_at.reset();
      events.record(journal::Kill{.instance = inst.name, .reason = "grace period over"});
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
      events.record(journal::Hang{.instance = inst.name,
                                  .seconds = seconds,
                                  .exiting = exiting,
                                  .last_step = inst.last_step});
      say(inst.name + ": " + c.reason);
      inst.hang.stop();
      push(HangDetected{i, c});
    }
  }
}

void Supervisor::Impl::sweep() {
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

}  // namespace pai::launcher
