#include "launcher/supervisor/supervisor.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/logs/output_writers.h"
#include "launcher/os/proc_stat.h"
#include "launcher/os/tcp_stats.h"
#include "launcher/policy/diagnosis.h"
#include "launcher/policy/tcp_slow_peers.h"
#include "launcher/supervisor/peer_table.h"
#include "launcher/supervisor/supervisor_impl.h"
#include "launcher/supervisor/telemetry_ring.h"
#include "libpai/terminal_text.h"

namespace pai::launcher {

Supervisor::Impl::Impl(const Plan& p, std::vector<const Placement*> placements, SupervisorOptions o,
                       EventLog& e, SupervisorHooks* h)
    : plan(p),
      options(std::move(o)),
      events(e),
      hooks(h),
      policy(p.fault_tolerance, governed(p, placements), p.nodes),
      terminal{options.terminal_stdout, options.terminal_stderr,
               isatty(options.terminal_stdout) == 1, isatty(options.terminal_stderr) == 1} {
  const char* path = std::getenv("PATH");
  forensics_tools = ForensicsTools::from_path(path != nullptr ? path : "");
  for (const Placement* placement : placements) {
    add_instance(static_cast<int>(placement - plan.placements.data()));
  }
  // After the control sockets: a second launcher of the same instances is refused there,
  // before its containment could take the first one's cgroups for stale ones.
  containment = std::make_unique<Containment>(options.cgroup_name,
                                              [this](const std::string& text) { say(text); });
}

int Supervisor::Impl::add_instance(int index) {
  const auto& hang = plan.fault_tolerance.hang;
  const Placement& placement = plan.placements.at(index);
  Instance inst(index, placement, find_role(plan, placement.role),
                HangWatch(hang.enabled, hang.interval_seconds, hang.exit_interval_seconds));
  inst.hang.set_silence_verdicts(!job_wide_hangs);
  inst.hang.set_adaptive(hang.adaptive_factor, hang.adaptive_floor_seconds,
                         hang.adaptive_warmup_steps);
  inst.log_dir = options.log_dir + "/" + inst.name;
  instances.push_back(std::move(inst));
  const int i = static_cast<int>(instances.size()) - 1;
  open_control_socket(i);
  adopt_standby_warm(i);
  return i;
}

const Placement& Supervisor::Impl::placement_of(const Instance& inst) const {
  return plan.placements.at(inst.placement_index);
}

Supervisor::Impl::~Impl() {
  // Killed here, reaped by the sweep: none may be killed by its pid once reaped.
  end_warm_interpreters();
  for (Instance& inst : instances) end_fault(inst, "the job ended for this node");
  sweep();
  for (Instance& inst : instances) remove_telemetry_files(inst);
}

std::vector<GovernedInstance> Supervisor::Impl::governed(
    const Plan& p, const std::vector<const Placement*>& placements) {
  std::vector<GovernedInstance> out;
  for (const Placement* pl : placements) {
    const Role* role = find_role(p, pl->role);
    out.push_back(GovernedInstance{pl->role, pl->index, role->nproc_per_node, role->completion,
                                   pl->first_rank});
  }
  return out;
}

void Supervisor::Impl::say(const std::string& text) {
  terminal_say(options.terminal_stderr, "pai-launch: " + text + "\n");
}

void Supervisor::Impl::open_control_socket(int i) {
  if (options.control_dir.empty()) return;
  Instance& inst = instances[i];
  inst.control_path = options.control_dir + "/" + inst.name + ".sock";
  inst.control = std::make_unique<ControlServer>(
      inst.control_path, loop,
      [this, i](const ControlRequest& r, int peer) { return on_control(i, r, peer); });
}

void Supervisor::Impl::create_telemetry_files_of(Instance& inst, Rank& rank) {
  rank.telemetry_path.clear();
  rank.peers_path.clear();
  if (options.control_dir.empty()) return;
  // Telemetry is an aid to diagnosis: the rank starts without what could not be created.
  const auto created = [&](const std::string& path, const char* variable, bool& warned,
                           void (*create)(const std::string&, int)) {
    try {
      create(path, rank.global_rank);
    } catch (const TelemetryError& e) {
      if (!warned) {
        say("warning: " + inst.name + ": ranks start without " + variable + ": " + e.what());
        warned = true;
      }
      return false;
    }
    auto& files = inst.telemetry_files;
    if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
    return true;
  };
  const std::string ring = options.control_dir + "/" + inst.name + ".rank-" +
                           std::to_string(rank.global_rank) + ".telemetry";
  if (!created(ring, "PAI_TELEMETRY_FILE", inst.telemetry_warned,
               [](const std::string& path, int r) { create_telemetry_ring(path, r); })) {
    return;
  }
  rank.telemetry_path = ring;
  // The NCCL profiler writes the table only while it writes the ring.
  const std::string peers = ring + ".peers";
  if (created(peers, "PAI_TELEMETRY_PEERS_FILE", inst.peers_warned,
              [](const std::string& path, int r) { create_peer_table(path, r); })) {
    rank.peers_path = peers;
  }
}

void Supervisor::Impl::remove_telemetry_files(Instance& inst) {
  for (const std::string& path : inst.telemetry_files) ::unlink(path.c_str());
  inst.telemetry_files.clear();
}

bool Supervisor::Impl::running(const Rank& rank) const {
  return rank.pid > 0 && by_pid.contains(rank.pid);
}

std::vector<RankTelemetrySummary> Supervisor::Impl::read_telemetry(
    Instance& inst, Clock::time_point now, std::vector<std::vector<int>>* processes) {
  std::vector<RankTelemetrySummary> summaries;
  for (std::size_t r = 0; r < inst.ranks.size(); ++r) {
    Rank& rank = inst.ranks[r];
    // A rank that ended has nothing more to say: its summarizer and mapping go.
    if (!running(rank)) rank.telemetry.reset();
    if (!rank.telemetry) continue;
    if (auto summary = rank.telemetry->summary(now)) {
      summaries.push_back(*summary);
      record_step(inst, rank.global_rank, rank.steps.sample(summary->step, now));
      if (processes != nullptr) {
        processes->push_back(
            rank_processes(containment->rank_cgroup(inst.name, static_cast<int>(r)), rank.pid));
      }
      const double mean_seconds =
          summary->steps > 0 ? static_cast<double>(summary->step_us) / 1e6 /
                                   static_cast<double>(summary->steps)
                             : 0;
      inst.hang.steps_ended(now, summary->rank, summary->steps, mean_seconds);
      // Any record of the window (a collective entered or exited too) is a sign of life.
      if (summary->quiet_ms >= 0 && summary->quiet_ms <= summary->window_us / 1000) {
        inst.hang.activity(now - std::chrono::milliseconds(summary->quiet_ms));
      }
    }
  }
  return summaries;
}

std::vector<RankTelemetrySummary> Supervisor::Impl::telemetry_of(Instance& inst,
                                                                 Clock::time_point now) {
  std::vector<std::vector<int>> processes;
  std::vector<RankTelemetrySummary> summaries = read_telemetry(inst, now, &processes);
  // MASTER_PORT: the rendezvous store (env://, torchrun), whose RTTs say nothing of the links.
  // Active connections: those that sent within two windows of the latest send (at least
  // 200 ms, at most the 2 s default): a connection idle for longer measured another phase.
  std::uint32_t spread = kTcpActiveSpreadMs;
  if (!summaries.empty() && summaries.front().window_us > 0) {
    spread = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(summaries.front().window_us / 500, 200, kTcpActiveSpreadMs));
  }
  const std::vector<TcpFigures> tcp = tcp_figures(processes, plan.master.port, spread);
  const double factor = plan.fault_tolerance.diagnosis.rtt_factor;
  const std::int64_t excess = DiagnosisSettings{}.min_rtt_excess_us;
  for (std::size_t k = 0; k < summaries.size(); ++k) {
    summaries[k].tcp_rtt_us = tcp[k].rtt_us;
    summaries[k].tcp_retrans = tcp[k].retrans;
    summaries[k].tcp_slow_peers = slow_peers(tcp[k].peer_rtt_us, factor, excess);
    const auto& stalled = tcp[k].stalled_peers;
    summaries[k].tcp_stalled_peers.assign(
        stalled.begin(), stalled.begin() + static_cast<std::ptrdiff_t>(
                                               std::min(stalled.size(), kMaxSlowPeers)));
  }
  return summaries;
}

ControlReply Supervisor::Impl::on_control(int i, const ControlRequest& request, int peer_pid) {
  Instance& inst = instances[i];
  if (const auto* n = std::get_if<NotifyRequest>(&request)) {
    events.record(journal::Notify{.instance = inst.name, .message = n->text});
    say(inst.name + ": notify: " + terminal_safe(n->text));
  } else if (const auto* p = std::get_if<ProgressRequest>(&request)) {
    inst.last_step = p->step;
    const auto now = Clock::now();
    inst.hang.activity(now);
    const int rank = rank_of_process(i, peer_pid);
    auto it = std::find_if(inst.ranks.begin(), inst.ranks.end(),
                           [&](const Rank& each) { return each.global_rank == rank; });
    StepRecords& steps = it != inst.ranks.end() ? it->steps : inst.progress_steps;
    record_step(inst, it != inst.ranks.end() ? rank : -1, steps.sample(p->step, now));
  } else if (const auto* h = std::get_if<HangIntervalRequest>(&request)) {
    inst.hang.set_interval(h->seconds);
    inst.hang.activity(Clock::now());
    events.record(journal::HangInterval{.instance = inst.name,
                                        .seconds = inst.hang.interval(),
                                        .is_default = h->seconds == 0,
                                        .off = h->seconds < 0});
  } else if (const auto* x = std::get_if<ExitHangIntervalRequest>(&request)) {
    inst.hang.set_exit_interval(x->seconds);
    events.record(journal::ExitHangInterval{.instance = inst.name,
                                            .seconds = inst.hang.exit_interval(),
                                            .is_default = x->seconds == 0});
  } else if (const auto* e = std::get_if<RetryableErrorRequest>(&request)) {
    const auto& known = added_retryable_errors;
    if (std::find(known.begin(), known.end(), e->text) != known.end()) return {};
    if (known.size() >= kMaxAddedRetryableErrors) {
      return ControlReply::error("too many retryable errors (limit " +
                                 std::to_string(kMaxAddedRetryableErrors) + ")");
    }
    added_retryable_errors.push_back(e->text);
    events.record(journal::RetryableError{.instance = inst.name, .text = e->text});
  } else if (const auto* c = std::get_if<CheckpointRequest>(&request)) {
    on_checkpoint(i, *c, peer_pid);
  } else if (std::holds_alternative<CheckpointAdviceRequest>(request)) {
    return {true, "interval=" + std::to_string(advised_interval_seconds) +
                      " request=" + std::to_string(asked_request(inst))};
  }
  return {};
}

void Supervisor::Impl::on_checkpoint(int i, const CheckpointRequest& c, int peer_pid) {
  using Phase = CheckpointRequest::Phase;
  Instance& inst = instances[i];
  auto& saving = inst.checkpoints_saving;
  if (c.phase == Phase::Begin) {
    const int rank = rank_of_process(i, peer_pid);
    saving.push_back({c.step, rank, asked_request(inst)});
    events.record(journal::CheckpointStarted{.instance = inst.name, .step = c.step, .rank = rank});
    return;
  }
  if (c.phase == Phase::Resumed) {
    // Still in flight (a stop waits for it), no longer a stall.
    events.record(journal::CheckpointResumed{
        .instance = inst.name, .step = c.step, .rank = rank_of_process(i, peer_pid)});
    return;
  }
  // The entry of this step, the sender's own when several ranks save the same step.
  const int rank = rank_of_process(i, peer_pid);
  auto it = std::find_if(saving.begin(), saving.end(), [&](const Instance::Saving& s) {
    return s.step == c.step && s.global_rank == rank;
  });
  if (it == saving.end()) {
    it = std::find_if(saving.begin(), saving.end(),
                      [&](const Instance::Saving& s) { return s.step == c.step; });
  }
  // A save without its begin answered the request its rank sees now.
  const std::int64_t answered = it != saving.end() ? it->request : asked_request(inst);
  if (it != saving.end()) saving.erase(it);
  if (c.phase == Phase::Done) {
    events.record(journal::Checkpoint{.instance = inst.name, .step = c.step, .path = c.text});
    if (hooks && reported_request > 0 && answered == reported_request) {
      hooks->checkpointed(i, c.step, answered);
    }
  } else {
    events.record(
        journal::CheckpointFailed{.instance = inst.name, .step = c.step, .reason = c.text});
    say(inst.name + ": checkpoint of step " + std::to_string(c.step) +
        " failed: " + terminal_safe(c.text));
  }
  end_checkpoint_wait(inst);
}

std::int64_t Supervisor::Impl::asked_request(const Instance& inst) const {
  return advised_request > inst.request_at_start ? advised_request : 0;
}

void Supervisor::Impl::record_step(const Instance& inst, int rank,
                                   std::optional<std::int64_t> step) {
  if (step) events.record(journal::Steps{.instance = inst.name, .step = *step, .rank = rank});
}

int Supervisor::Impl::rank_of_process(int i, int pid) const {
  if (pid <= 0) return -1;
  const int found = nearest_ancestor(pid, [&](int p) {
    const auto it = by_pid.find(p);
    return it != by_pid.end() && it->second.first == i;
  });
  if (found == 0) return -1;
  const auto [instance, r] = by_pid.at(found);
  return instances[instance].ranks[r].global_rank;
}

void Supervisor::Impl::forget_saves_of(Instance& inst, int global_rank) {
  auto& saving = inst.checkpoints_saving;
  const auto gone = std::stable_partition(saving.begin(), saving.end(), [&](const auto& s) {
    return s.global_rank != global_rank;
  });
  if (gone == saving.end()) return;
  for (auto it = gone; it != saving.end(); ++it) {
    events.record(
        journal::CheckpointAbandoned{.instance = inst.name, .step = it->step, .rank = global_rank});
  }
  saving.erase(gone, saving.end());
  end_checkpoint_wait(inst);
}

void Supervisor::Impl::end_checkpoint_wait(Instance& inst) {
  // A stop that waited for the save goes on now (after the stack dumps' window, if any).
  if (inst.stopping && inst.signal_at && inst.checkpoints_saving.empty()) {
    inst.signal_at = std::max(Clock::now(), inst.dumps_until.value_or(Clock::now()));
  }
}

int Supervisor::Impl::run() {
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
  for (Instance& inst : instances) {
    inst.control.reset();
    remove_telemetry_files(inst);
  }
  sweep();
  return exit_code;
}

Supervisor::Supervisor(const Plan& plan, std::vector<const Placement*> instances,
                       SupervisorOptions options, EventLog& events, SupervisorHooks* hooks)
    : impl_(std::make_unique<Impl>(plan, std::move(instances), std::move(options), events, hooks)) {
}

Supervisor::~Supervisor() = default;

int Supervisor::run() { return impl_->run(); }

int Supervisor::add_instance(const Placement& placement) {
  return impl_->add_instance(static_cast<int>(&placement - impl_->plan.placements.data()));
}

void Supervisor::prewarm(const std::string& folder) { impl_->prewarm(folder); }

void Supervisor::apply(const PolicyAction& action) {
  // Like a decision of the local policy: events it raises are decided after it.
  impl_->draining = true;
  impl_->execute(action);
  impl_->drain();
}

void Supervisor::kill_instance(int instance) {
  Impl::Instance& inst = impl_->instances.at(instance);
  impl_->events.record(journal::Kill{.instance = inst.name, .reason = "pai-launch kill"});
  impl_->signal_group(inst, SIGKILL);
}

void Supervisor::advise_checkpoints(std::int64_t interval_seconds, std::int64_t request,
                                    bool report) {
  impl_->advised_interval_seconds = interval_seconds;
  impl_->advised_request = request;
  if (report) impl_->reported_request = request;
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
  Impl::Instance& inst = impl_->instances.at(instance);
  const auto now = std::chrono::steady_clock::now();
  InstanceActivity a;
  a.running = inst.live > 0;
  a.idle_ms = inst.hang.idle_ms(now);
  a.hang_interval = inst.hang.interval();
  a.step = inst.last_step;
  for (std::size_t r = 0; r < inst.ranks.size(); ++r) {
    const Impl::Rank& rank = inst.ranks[r];
    if (!impl_->running(rank)) continue;
    const auto usage = impl_->containment->usage(inst.name, static_cast<int>(r));
    if (!usage) break;  // no cgroups: none of its ranks has figures
    a.ranks.push_back(RankActivity{
        .rank = rank.global_rank,
        .pid = rank.pid,
        .cpu_ms = static_cast<std::int64_t>(usage->cpu_seconds * 1000),
        .memory_bytes = usage->memory_current_bytes.value_or(-1),
        .memory_peak_bytes = usage->memory_peak_bytes.value_or(-1)});
  }
  a.telemetry = impl_->telemetry_of(inst, now);
  return a;
}

int Supervisor::instances() const { return static_cast<int>(impl_->instances.size()); }

void Supervisor::set_reap_known_only(bool on) {
  impl_->reap_known_only = std::max(0, impl_->reap_known_only + (on ? 1 : -1));
  if (impl_->reap_known_only == 0) impl_->reap();
}

EventLoop& Supervisor::loop() { return impl_->loop; }

}  // namespace pai::launcher
