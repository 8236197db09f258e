#include "launcher/coordinator/job_run.h"

#include <algorithm>
#include <csignal>
#include <utility>

#include "launcher/coordinator/node_checks.h"
#include "launcher/coordinator/replacement.h"
#include "libpai/duration.h"
#include "libpai/rank_name.h"

namespace pai::launcher::coordinator {

namespace {

std::vector<GovernedInstance> governed(const Plan& plan) {
  std::vector<GovernedInstance> out;
  for (const Placement& p : plan.placements) {
    const Role* role = find_role(plan, p.role);
    out.push_back(GovernedInstance{p.role, p.index, role ? role->nproc_per_node : 1,
                                   role ? role->completion : Completion{}, p.first_rank});
  }
  return out;
}

// "worker-1 on node-1", "worker-1 (node-1, excluded)" once its node is out of the job (a spare
// takes the instance when it starts again), "worker-0, worker-1 and ps-0" for a batch.
std::string batch_names(const CoordinatorState& state, const std::vector<int>& instances) {
  std::vector<std::string> names;
  for (int i : instances) names.push_back(state.instance_name(i));
  if (instances.size() == 1) {
    const Node& n = state.nodes[static_cast<std::size_t>(
        state.instances[static_cast<std::size_t>(instances[0])].node)];
    return names[0] + (n.excluded.empty() ? " on " + n.name : " (" + n.name + ", excluded)");
  }
  return name_list(names);
}

}  // namespace

JobRun::JobRun(CoordinatorState& state)
    : state_(state),
      policy_(state.plan.fault_tolerance, governed(state.plan), state.plan.nodes),
      runs_(state.instances),
      fabric_(state),
      diagnosis_(state),
      forensics_(state),
      gpu_idle_(state),
      nic_(state),
      pause_(state, runs_),
      checkpoints_(state.plan.fault_tolerance.checkpoint_plan),
      swap_(state.plan.fault_tolerance.swap) {}

void JobRun::start(Clock::time_point now) {
  now_ = now;
  const auto wall_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  const std::optional<Takeover>& takeover = state_.settings.takeover;
  // A job taken over after its first start goes on from where its policy stood, and its time
  // limit runs from that first start.
  const bool resumed = takeover && takeover->state.first_start_unix_ms > 0;
  first_start_unix_ms_ = resumed ? takeover->state.first_start_unix_ms : wall_ms;
  if (state_.plan.time_limit_seconds > 0 && !time_limit_at_) {
    const auto ran = std::chrono::milliseconds(std::max<std::int64_t>(0, wall_ms - first_start_unix_ms_));
    time_limit_at_ = now + std::chrono::seconds(state_.plan.time_limit_seconds) - ran;
  }
  if (!resumed) {
    process(policy_.start());
    return;
  }
  // The launchers' word wins where the state in etcd lags (the lost coordinator died between
  // a start and its write): an instance restarts past any attempt a launcher ran.
  PolicySnapshot past = takeover->state.policy;
  for (const auto& [instance, attempt] : state_.ran_attempts) {
    const auto i = static_cast<std::size_t>(instance);
    if (i >= state_.instances.size()) continue;
    if (past.restart_counts.size() <= i) past.restart_counts.resize(i + 1, 0);
    if (past.outcomes.size() <= i) past.outcomes.resize(i + 1, PolicySnapshot::Outcome::Running);
    past.restart_counts[i] = std::max(past.restart_counts[i], attempt);
  }
  process(policy_.resume(past, "the coordinator on " + takeover->lost_node + " was lost"));
}

void JobRun::publish_state() {
  if (!state_.settings.publish_state) return;
  TakeoverState now{.policy = policy_.snapshot(), .first_start_unix_ms = first_start_unix_ms_, .out = {}};
  for (const Node& n : state_.nodes) {
    if (!n.excluded.empty()) {
      now.out[n.name] = n.excluded;
    } else if (!n.replaced_by.empty()) {
      now.out[n.name] = "replaced by spare " + n.replaced_by;
    }
  }
  if (published_ == now) return;
  published_ = now;
  state_.settings.publish_state(now);
}

// ---- The policy ----

void JobRun::feed(const PolicyEvent& event) {
  queue_.push_back(event);
  process({});
}

// Actions may feed events (a stop of an instance whose node is gone is over at once); they
// are queued and fed after the batch, so batches never interleave.
void JobRun::process(std::vector<PolicyAction> actions) {
  apply(actions);
  if (draining_) return;
  draining_ = true;
  while (!queue_.empty() && state_.phase == Phase::Running) {
    const PolicyEvent event = queue_.front();
    queue_.pop_front();
    apply(policy_.on(event));
  }
  queue_.clear();
  draining_ = false;
  publish_state();
}

void JobRun::apply(const std::vector<PolicyAction>& actions) {
  std::vector<int> stops;
  std::vector<int> restarts;
  for (const PolicyAction& action : actions) {
    if (const auto* stop = std::get_if<StopInstance>(&action)) stops.push_back(stop->instance);
    if (const auto* restart = std::get_if<ScheduleRestart>(&action)) {
      restarts.push_back(restart->instance);
    }
  }
  bool first_stop = true;
  bool first_restart = true;
  for (const PolicyAction& action : actions) {
    if (state_.phase != Phase::Running) return;
    if (const auto* start = std::get_if<StartInstance>(&action)) {
      start_instance(start->instance, start->restart_count,
                     start->restart_count > 0 && state_.plan.sanity_check.enabled);
    } else if (const auto* stop = std::get_if<StopInstance>(&action)) {
      stop_instance(*stop, first_stop
                               ? "stopping " + batch_names(state_, stops) + ": " + stop->reason
                               : std::string());
      first_stop = false;
    } else if (const auto* restart = std::get_if<ScheduleRestart>(&action)) {
      schedule_restart(*restart, first_restart ? batch_names(state_, restarts) : std::string());
      first_restart = false;
    } else if (const auto* failure = std::get_if<FailJob>(&action)) {
      fail(*failure);
    } else if (std::holds_alternative<CompleteJob>(action)) {
      state_.finish_job(0, "the job succeeded", journal::JobSucceeded{}, "job succeeded");
    } else if (const auto* cancel = std::get_if<CancelJob>(&action)) {
      state_.cancel_job(cancel->exit_code, "the coordinator: " + cancel->reason);
    }
  }
  start_ready();
}

void JobRun::schedule_restart(const ScheduleRestart& given, const std::string& batch) {
  ScheduleRestart restart = given;
  // A lost node restarts at once only onto a ready spare (restart_backoff.h); with none, the
  // backoff is the node's time to come back before its instance has nowhere to run. The
  // instances a job-wide restart stopped on live nodes need no spare: they restart at once
  // too, even when the lost node's instance took the spare first.
  Instance& inst = state_.instances.at(static_cast<std::size_t>(restart.instance));
  const bool node_gone = state_.nodes[static_cast<std::size_t>(inst.node)].session < 0;
  if (restart.signature == "node-lost" && node_gone && state_.ready_spare() < 0) {
    restart.delay_seconds =
        std::max(restart.delay_seconds, state_.plan.fault_tolerance.backoff_seconds);
  }
  runs_.set_backoff(restart.instance, now_ + std::chrono::seconds(restart.delay_seconds));
  state_.nodes[static_cast<std::size_t>(inst.node)].last_event =
      "restart " + std::to_string(restart.restart_count) + " in " +
      std::to_string(restart.delay_seconds) + "s";
  std::string line;
  if (!batch.empty()) {
    line = "restarting " + batch + " in " + std::to_string(restart.delay_seconds) + "s (restart " +
           std::to_string(restart.restart_count) + " of " +
           std::to_string(state_.plan.fault_tolerance.max_restarts) + "): " + restart.reason;
  }
  state_.record(journal::Restart{.instance = state_.instance_name(restart.instance),
                                 .attempt = restart.restart_count,
                                 .delay_seconds = restart.delay_seconds,
                                 .reason = restart.reason,
                                 .signature = restart.signature},
                line);
}

void JobRun::start_instance(int instance, int attempt, bool recheck) {
  Instance& inst = state_.instances.at(static_cast<std::size_t>(instance));
  // Each resume is an attempt of its own (its logs and PAI_RESTART_COUNT are new), though not
  // a restart of the policy's: the restart budget is not used.
  inst.attempt = attempt + inst.resumed;
  runs_.set_backoff(instance, std::nullopt);
  runs_.set_pending(instance, true);
  int node = inst.node;
  const Node& current = state_.nodes[static_cast<std::size_t>(node)];
  if (current.session < 0 || !current.excluded.empty()) {
    const std::string what =
        !current.excluded.empty()
            ? "node " + current.name + " excluded (" + current.excluded + ")"
            : "node " + current.name + " lost" +
                  (current.lost_reason.empty() ? "" : " (" + current.lost_reason + ")");
    const int spare = state_.ready_spare();
    if (spare < 0) {
      fail(what + " and no spare left");
      return;
    }
    replace_node(state_, instance, spare, what);
    if (!reassign(instance)) return;
    node = spare;
  }
  if (recheck) request_checks(state_, node, true);
}

void JobRun::stop_instance(const StopInstance& stop, const std::string& line) {
  Instance& inst = state_.instances.at(static_cast<std::size_t>(stop.instance));
  state_.record(journal::Stop{.instance = state_.instance_name(stop.instance),
                              .signal = stop.signal,
                              .dump_stacks = stop.dump_stacks,
                              .reason = stop.reason},
                line);
  inst.policy_stop = true;
  runs_.set_pending(stop.instance, false);
  const bool has_processes = inst.run == Run::Running || inst.run == Run::Stopping;
  if (has_processes && state_.send_to_node(inst.node, net::Stop{stop.instance, stop.signal,
                                                                stop.dump_stacks, stop.reason})) {
    runs_.set_run(stop.instance, Run::Stopping);
    return;
  }
  // Nothing runs there (not started yet, or its node is gone): the stop is over.
  instance_stopped(stop.instance);
}

void JobRun::instance_stopped(int instance) {
  Instance& inst = state_.instances.at(static_cast<std::size_t>(instance));
  if (inst.failed_exit) {
    runs_.set_run(instance, Run::Failed);
  } else if (inst.policy_stop || inst.paused || inst.run != Run::Running) {
    runs_.set_run(instance, Run::Stopped);
  } else {
    runs_.set_run(instance, Run::Succeeded);
  }
  inst.heartbeat.reset();
  const bool feed_policy = !paused() || inst.policy_stop;
  inst.policy_stop = false;
  if (feed_policy) feed(InstanceStopped{instance});
  start_ready();
  if (swap_.phase() == JobSwap::Phase::Stopping) finish_swap();
}

// In sync mode the whole job starts together on one assignment (a replacement re-places every
// instance).
void JobRun::start_ready() {
  if (paused() || state_.phase != Phase::Running) return;
  const bool sync = state_.plan.fault_tolerance.mode == FaultToleranceMode::Sync;
  // Without the walk below when nothing waits, or while any instance stops or backs off in
  // sync mode: a job-wide restart or end of N instances calls this N times.
  if (runs_.pending() == 0 || (sync && (runs_.stopping() > 0 || runs_.backing_off()))) return;
  std::vector<int> ready;
  for (std::size_t i = 0; i < state_.instances.size(); ++i) {
    const Instance& inst = state_.instances[i];
    if (inst.start_pending) {
      const Node& n = state_.nodes[static_cast<std::size_t>(inst.node)];
      if (n.session < 0 || n.health != Health::Ready || inst.run == Run::Stopping) return;
      ready.push_back(static_cast<int>(i));
    } else if (sync && (inst.backoff_until || inst.run == Run::Stopping)) {
      return;
    }
  }
  if (ready.empty() || fabric_.holds_starts(now_, started_)) return;  // fabric_progress() goes on
  started_ = true;
  note_drift(ready);
  for (int i : ready) {
    Instance& inst = state_.instances[static_cast<std::size_t>(i)];
    Node& n = state_.nodes[static_cast<std::size_t>(inst.node)];
    // A node that joined since (a spare) or whose advice went with a lost connection.
    if (checkpoints_.changed()) state_.send_to_node(inst.node, checkpoint_advice());
    state_.send_to_node(inst.node, net::Start{i, inst.attempt});
    runs_.set_pending(i, false);
    runs_.set_run(i, Run::Running);
    inst.started = now_;
    inst.failed_exit = false;
    inst.heartbeat.reset();
    diagnosis_.restarted(i);
    forensics_.restarted(i);
    gpu_idle_.forget(inst.node);
    nic_.forget(inst.node);
    inst.gpus.clear();
    n.last_event = "started attempt " + std::to_string(inst.attempt);
    state_.record(
        journal::Start{
            .instance = state_.instance_name(i), .node = n.name, .attempt = inst.attempt},
        i == ready.front() ? "starting " + batch_names(state_, ready) + " (attempt " +
                                 std::to_string(inst.attempt) + ")"
                           : std::string());
  }
}

void JobRun::fabric_progress(Clock::time_point now) {
  now_ = now;
  const auto excluded = fabric_.take_result();
  if (!excluded) return;
  for (const FabricExclusion& e : *excluded) {
    Node& n = state_.nodes[static_cast<std::size_t>(e.node)];
    n.excluded = e.why;
    n.last_event = "excluded: " + e.why;
    state_.record(journal::NodeExcluded{.node = n.name, .reason = e.why},
                  n.name + " excluded: " + e.why);
    if (n.instance < 0) {
      state_.release(e.node, "spare " + n.name + " is not used: " + e.why);
      continue;
    }
    const int instance = n.instance;
    const int spare = state_.ready_spare();
    if (spare < 0)
      return fail(e.why + "; no ready spare left to restart " + state_.instance_name(instance) +
                  " on");
    replace_node(state_, instance, spare, e.why);
    if (!reassign(instance)) return;
    // It was measured by the check just run (the ready spares take part): its own checks
    // run again for the instance it now holds.
    request_checks(state_, spare, true);
  }
  start_ready();
}

void JobRun::fail(const FailJob& failure) {
  std::string summary;
  journal::JobFailed record{
      .reason = failure.reason, .exit_code = failure.exit_code, .local_rank = failure.local_rank};
  if (failure.instance >= 0) {
    summary = state_.instances.at(static_cast<std::size_t>(failure.instance)).failure_summary;
    record.instance = state_.instance_name(failure.instance);
    record.status = journal::ExitStatus{failure.status.code, failure.status.signal};
    record.classification = journal::ExitClassification{
        failure.classification.retryable, failure.classification.reason,
        failure.classification.matched_line, failure.classification.signature};
    record.summary = summary;
  }
  std::string reason = summary.empty() ? failure.reason : failure.reason + "\n" + summary;
  if (!forensics_.evidence().empty() && !diagnosis_.hang_culprit()) {
    record.stack_culprit = forensics_.evidence();
    reason += "\nculprit from the stacks: " + forensics_.evidence();
  }
  state_.finish_job(failure.exit_code, reason, std::move(record), "job failed: " + reason);
}

void JobRun::fail(const std::string& reason) {
  state_.finish_job(1, reason, journal::JobFailed{.reason = reason, .exit_code = 1},
                    "job failed: " + reason);
}

// ---- Reports ----

void JobRun::check_own(int node, int instance, const char* type, const char* field) const {
  const Node& n = state_.nodes.at(static_cast<std::size_t>(node));
  if (n.instance != instance) {
    throw net::field_error(type, field,
                           "node " + n.name + " does not run instance " + std::to_string(instance));
  }
}

template <class Entries>
void JobRun::check_ranks(int instance, const Entries& entries, const char* type, const char* field,
                         const std::string& what) const {
  const Placement& p = state_.placed.placements[static_cast<std::size_t>(instance)];
  const int first = p.first_rank;
  const int last = last_rank(state_.placed, p);
  if (static_cast<std::int64_t>(entries.size()) > last - first + 1) {
    throw net::field_error(type, field, "more " + what + " than ranks");
  }
  for (const auto& entry : entries) {
    if (entry.rank < first || entry.rank > last) {
      throw net::field_error(
          type, field,
          "rank " + std::to_string(entry.rank) + " is not in instance " + std::to_string(instance));
    }
  }
}

void JobRun::exited(int node, const net::Exited& message, Clock::time_point now) {
  now_ = now;
  check_own(node, message.instance, message.kType, "instance");
  ProcessExited event;
  event.instance = message.instance;
  event.local_rank = message.local_rank;
  event.status = ExitStatus{message.status.code, message.status.signal};
  event.classification.retryable = message.classification.retryable;
  event.classification.reason = message.classification.reason;
  event.classification.matched_line = message.classification.matched_line;
  event.classification.signature = message.classification.signature;
  Instance& inst = state_.instances[static_cast<std::size_t>(event.instance)];
  if (inst.run != Run::Running && inst.run != Run::Stopping) return;  // a late report
  const std::string name = state_.instance_name(event.instance);
  Node& n = state_.nodes[static_cast<std::size_t>(node)];
  const int global_rank =
      state_.placed.placements[static_cast<std::size_t>(event.instance)].first_rank +
      event.local_rank;
  std::string line;
  if (!event.status.success() && !message.stopping) {
    inst.failed_exit = true;
    line = to_string(RankName{.rank = global_rank,
                              .instance = name,
                              .local_rank = event.local_rank,
                              .node = n.name}) +
           " failed: " + event.classification.reason;
    n.last_event =
        "rank " + std::to_string(global_rank) + " failed: " + event.classification.reason;
  }
  state_.record(journal::Exited{.instance = name,
                                .local_rank = event.local_rank,
                                .status = {event.status.code, event.status.signal},
                                .retryable = event.classification.retryable,
                                .reason = event.classification.reason,
                                .stopping = message.stopping},
                line);
  if (!paused()) feed(event);
}

void JobRun::stopped(int node, const net::Stopped& message, Clock::time_point now) {
  now_ = now;
  const int instance = message.instance;
  check_own(node, instance, message.kType, "instance");
  const Instance& inst = state_.instances[static_cast<std::size_t>(instance)];
  if (inst.run != Run::Running && inst.run != Run::Stopping) return;  // a late report
  state_.nodes[static_cast<std::size_t>(node)].last_event = "stopped";
  instance_stopped(instance);
}

void JobRun::hang(int node, const net::Hang& message, Clock::time_point now) {
  now_ = now;
  check_own(node, message.instance, message.kType, "instance");
  if (state_.instances[static_cast<std::size_t>(message.instance)].run != Run::Running) return;
  const Classification c =
      classify_hang(state_.plan.fault_tolerance.policy, message.seconds, message.exiting);
  state_.record(journal::Hang{.instance = state_.instance_name(message.instance),
                              .seconds = message.seconds,
                              .exiting = message.exiting},
                state_.instance_name(message.instance) + " on " +
                    state_.nodes[static_cast<std::size_t>(node)].name + ": " + c.reason);
  if (!paused()) feed(HangDetected{message.instance, c});
}

void JobRun::heartbeat(int node, const net::NodeHeartbeat& message, Clock::time_point now) {
  now_ = now;
  for (const net::HeartbeatInstance& e : message.instances) {
    check_own(node, e.instance, message.kType, "instances");
    // Rank figures and telemetry alike: no more entries than the instance has ranks, each
    // naming one of them.
    check_ranks(e.instance, e.ranks, message.kType, "instances", "rank figures");
    check_ranks(e.instance, e.telemetry, message.kType, "instances", "telemetry entries");
  }
  for (const net::HeartbeatInstance& e : message.instances) {
    Instance& inst = state_.instances[static_cast<std::size_t>(e.instance)];
    if (inst.run != Run::Running) continue;
    inst.heartbeat = InstanceHeartbeat{e.idle_ms, e.hang_interval, now, e.ranks, e.telemetry};
    diagnosis_.observe(node, e, now);
  }
  watch_gpus(node, message.gpus);
  watch_nics(node, message);
  diagnose();
  detect_hang(false);
}

void JobRun::watch_nics(int node, const net::NodeHeartbeat& message) {
  const int instance = state_.nodes[static_cast<std::size_t>(node)].instance;
  if (message.nics.empty() || instance < 0 || paused() || state_.phase != Phase::Running) return;
  if (state_.instances[static_cast<std::size_t>(instance)].run != Run::Running) return;
  // The node's ranks sit in collectives when their median share of the window does.
  std::vector<double> shares;
  for (const net::HeartbeatInstance& e : message.instances) {
    for (const net::RankTelemetry& t : e.telemetry) {
      if (t.window_us > 0) {
        shares.push_back(static_cast<double>(t.comm_us) / static_cast<double>(t.window_us));
      }
    }
  }
  std::sort(shares.begin(), shares.end());
  const bool in_collectives = !shares.empty() && shares[shares.size() / 2] >= 0.5;
  for (const NicVerdict& v : nic_.observe(node, message.nics, in_collectives, now_)) apply_nic(v);
}

void JobRun::apply_nic(const NicVerdict& v) {
  state_.record(nic_.record(v), nic_.line(v));
  state_.nodes[static_cast<std::size_t>(v.node)].last_event = nic_.line(v);  // for `status`
  swap_.noticed(v, state_.nodes[static_cast<std::size_t>(v.node)].name, now_);
  if (v.critical) {
    state_.send_to_node(
        v.node, net::NicVerdictNotice{
                    .port = v.port, .problem = to_string(v.problem), .evidence = v.evidence});
  }
}

void JobRun::note_drift(const std::vector<int>& starting) {
  std::vector<int> nodes;
  for (int i : starting) nodes.push_back(state_.instances[static_cast<std::size_t>(i)].node);
  auto facts = facts_of(state_, nodes);
  const int attempt = state_.instances[static_cast<std::size_t>(starting.front())].attempt;
  if (run_facts_attempt_ >= 0) {
    const std::vector<FactChange> changes = fact_drift(run_facts_, facts);
    if (!changes.empty()) {
      journal::FabricDrift record{.attempt = attempt, .since = run_facts_attempt_, .changes = {}};
      for (const FactChange& c : changes) {
        record.changes.push_back({c.node, c.key, c.before, c.after});
      }
      std::string text = "fabric drift since attempt " + std::to_string(run_facts_attempt_) + ":";
      for (const std::string& line : drift_lines(changes)) text += "\n  " + line;
      state_.record(std::move(record), text);
    }
  }
  run_facts_ = std::move(facts);
  run_facts_attempt_ = attempt;
}

void JobRun::watch_gpus(int node, const std::vector<net::GpuSample>& gpus) {
  const int instance = state_.nodes[static_cast<std::size_t>(node)].instance;
  if (gpus.empty() || instance < 0) return;
  Instance& inst = state_.instances[static_cast<std::size_t>(instance)];
  if (inst.run != Run::Running) return;
  inst.gpus = gpus;
  if (paused() || state_.phase != Phase::Running) return;
  for (const GpuIdleVerdict& v : gpu_idle_.observe(node, inst.attempt, gpus, now_)) {
    state_.record(gpu_idle_.record(v, instance), gpu_idle_.line(v, instance));
    if (const auto failure = gpu_idle_.restart(v)) feed(HangDetected{instance, *failure});
  }
}

void JobRun::failure(int node, const net::Failure& message) {
  check_own(node, message.instance, message.kType, "instance");
  state_.record(journal::Failure{.instance = state_.instance_name(message.instance),
                                 .rank = message.rank,
                                 .summary = message.summary});
  state_.instances[static_cast<std::size_t>(message.instance)].failure_summary = message.summary;
}

void JobRun::forensics(int node, const net::Forensics& message) {
  check_own(node, message.instance, message.kType, "instance");
  check_ranks(message.instance, message.ranks, message.kType, "ranks", "entries");
  const JobForensics::Verdict verdict = forensics_.observe(node, message);
  std::string culprits;
  for (int rank : verdict.culprits) {
    culprits += (culprits.empty() ? "" : ",") + std::to_string(rank);
  }
  state_.record(
      journal::Forensics{.instance = state_.instance_name(message.instance),
                         .node = state_.nodes[static_cast<std::size_t>(node)].name,
                         .attempt = message.attempt,
                         .folder = message.folder,
                         .in_collective = ranks_at(verdict.reported, StackPlace::Collective),
                         .outside = ranks_at(verdict.reported, StackPlace::Outside),
                         .unknown = ranks_at(verdict.reported, StackPlace::Unknown),
                         .culprits = culprits,
                         .evidence = verdict.evidence},
      verdict.changed && !verdict.culprits.empty()
          ? "hang forensics: the stacks name the culprit: " + verdict.evidence
          : std::string());
}

// ---- Nodes ----

void JobRun::node_checked(int node, Clock::time_point now) {
  now_ = now;
  Node& n = state_.nodes.at(static_cast<std::size_t>(node));
  if (n.health == Health::Failed && n.instance >= 0) {
    const int instance = n.instance;
    const CheckOutcome outcome = handle_failed_checks(state_, node);
    if (outcome != CheckOutcome::Replaced) return;
    if (!reassign(instance)) return;
    request_checks(state_, state_.instances[static_cast<std::size_t>(instance)].node, true);
    return;
  }
  start_ready();
}

void JobRun::node_joined(int node, Clock::time_point now) {
  now_ = now;
  Node& n = state_.nodes.at(static_cast<std::size_t>(node));
  if (n.instance >= 0) {
    if (n.health == Health::Ready) {
      n.lost_reason.clear();
      state_.send_to_node(node, assign_message(state_, n.instance));
      start_ready();
    } else {
      node_checked(node, now);
    }
    return;
  }
  if (n.health != Health::Ready) {
    state_.release(node, "spare " + n.name + " is not used: " + n.failed_text());
    return;
  }
  n.last_event = "standing by";
  state_.send_to_node(node, net::Standby{});
  const auto moved = replace_failed_nodes(state_);
  if (moved.empty()) return;
  if (!assign_all(state_, "re-assigned " + state_.instance_name(moved.front()) + " to " + n.name)) {
    return;
  }
  for (int instance : moved) {
    request_checks(state_, state_.instances[static_cast<std::size_t>(instance)].node, true);
  }
}

void JobRun::node_lost(int node, const std::string& why, Clock::time_point now) {
  now_ = now;
  Node& n = state_.nodes.at(static_cast<std::size_t>(node));
  n.lost_reason = why;
  n.last_event = "lost: " + why;
  // Its pairs in a fabric check before a restart fail now; the verdict waits for the rest.
  fabric_.node_lost(node, now);
  nic_.forget(node);
  if (n.instance < 0) {
    state_.record(journal::SpareLost{.node = n.name, .reason = why},
                  "spare " + n.name + " lost: " + why);
    fabric_progress(now);
    return;
  }
  const int instance = n.instance;
  Instance& inst = state_.instances[static_cast<std::size_t>(instance)];
  state_.record(
      journal::NodeLost{.node = n.name, .instance = state_.instance_name(instance), .reason = why},
      "node " + n.name + " (" + state_.instance_name(instance) + ") lost: " + why);
  inst.heartbeat.reset();
  if (inst.run == Run::Stopping) {
    instance_stopped(instance);
  } else if (paused()) {
    // resume() finds the node gone and gives the instance to a spare.
    if (inst.start_pending || inst.run == Run::Running) inst.paused = true;
    if (inst.run == Run::Running) runs_.set_run(instance, Run::Stopped);
    runs_.set_pending(instance, false);
  } else if (inst.start_pending || inst.run == Run::Running) {
    ProcessExited event;
    event.instance = instance;
    event.local_rank = -1;
    event.status = ExitStatus{0, SIGKILL};
    event.classification.retryable = state_.plan.fault_tolerance.policy != RestartPolicy::Never;
    event.classification.reason = "launcher on " + n.name + " lost: " + why;
    event.classification.signature = "node-lost";
    runs_.set_pending(instance, false);
    inst.failed_exit = true;
    feed(event);
  }
  fabric_progress(now);
  start_ready();
}

// ---- Time ----

void JobRun::tick(Clock::time_point now) {
  now_ = now;
  if (time_limit_at_ && now >= *time_limit_at_ && state_.phase == Phase::Running) {
    state_.cancel_job(128 + SIGTERM, "the coordinator: time limit " +
                                         format_duration(state_.plan.time_limit_seconds) +
                                         " (timeLimit) reached");
    return;
  }
  if (!paused()) {
    while (state_.phase == Phase::Running) {
      const auto instance = runs_.take_elapsed_backoff(now);
      if (!instance) break;
      feed(BackoffElapsed{*instance});
    }
  }
  fabric_.tick(now);
  fabric_progress(now);
  if (!paused() && state_.phase == Phase::Running) {
    for (const NicVerdict& v : nic_.decide(now)) apply_nic(v);
  }
  diagnose();
  detect_hang(true);
  check_swap();
}

std::optional<Clock::time_point> JobRun::next_deadline() const {
  if (state_.phase != Phase::Running) return std::nullopt;
  std::optional<Clock::time_point> next;
  auto consider = [&](std::optional<Clock::time_point> t) {
    if (t && (!next || *t < *next)) next = t;
  };
  consider(time_limit_at_);
  if (paused()) return next;
  consider(runs_.next_backoff());
  if (state_.plan.fault_tolerance.hang.enabled) consider(hang_watch_.next_deadline());
  consider(diagnosis_.next_due());
  consider(nic_.next_due());
  consider(fabric_.next_deadline());
  if (swap_.enabled()) consider(swap_.next_due());
  return next;
}

void JobRun::detect_hang(bool due) {
  if (paused() || state_.phase != Phase::Running || !state_.plan.fault_tolerance.hang.enabled) {
    return;
  }
  auto hang = hang_watch_.check(state_, now_, due);
  if (!hang) return;
  Classification c = classify_hang(state_.plan.fault_tolerance.policy, hang->idle_seconds, false);
  journal::Hang record{.job_wide = true, .seconds = hang->idle_seconds};
  std::string blame = state_.instance_name(hang->instance) + " idle longest (" +
                      std::to_string(hang->idle_seconds) + "s)";
  // The instance idle longest is often only waiting for the stuck rank elsewhere: a hang
  // verdict of the diagnosis knows better.
  const auto& culprit = diagnosis_.hang_culprit();
  const int culprit_instance = culprit ? diagnosis_.instance_of(*culprit) : -1;
  if (culprit_instance >= 0 &&
      state_.instances[static_cast<std::size_t>(culprit_instance)].run == Run::Running) {
    hang->instance = culprit_instance;
    const std::string cls = to_string(culprit->cls);
    record.culprit = journal::HangCulprit{cls, culprit->rank, culprit->node_name};
    blame = "the culprit: " + culprit->evidence;
    c.reason += "; " + cls + ": " + culprit->evidence;
  }
  record.instance = state_.instance_name(hang->instance);
  state_.record(std::move(record),
                "job-wide hang: no output or progress from any running instance for its hang "
                "interval; " +
                    blame);
  feed(HangDetected{hang->instance, c});
}

void JobRun::diagnose() {
  if (paused() || state_.phase != Phase::Running) return;
  for (Diagnosis v : diagnosis_.decide(now_)) {
    const std::string cls = to_string(v.cls);
    const std::string severity = to_string(v.severity);
    // A link verdict on RDMA: what the node's ports said, when they said anything.
    const bool link =
        v.cls == DiagnosisClass::RankCommSlow || v.cls == DiagnosisClass::RankCommHang;
    if (link && v.node >= 0) {
      const std::string nic = nic_.evidence(v.node);
      if (!nic.empty()) v.evidence += "; its NIC: " + nic;
    }
    state_.record(journal::Diagnosis{.cls = cls,
                                     .node = v.node_name,
                                     .rank = v.rank,
                                     .gpu = v.gpu,
                                     .severity = severity,
                                     .evidence = v.evidence},
                  "diagnosis (" + severity + "): " + cls + ": " + v.evidence);
    swap_.noticed(v, now_);
    if (state_.plan.fault_tolerance.diagnosis.action != DiagnosisAction::Isolate) continue;
    if (const auto isolation = diagnosis_.isolation(v, fabric_.wanted(started_))) {
      isolate(v, *isolation);
    }
  }
}

void JobRun::isolate(const Diagnosis& verdict, const Isolation& isolation) {
  const std::string cls = to_string(verdict.cls);
  if (isolation.exclude_node >= 0) {
    Node& n = state_.nodes[static_cast<std::size_t>(isolation.exclude_node)];
    n.excluded = "diagnosis " + cls;
    n.last_event = "excluded: " + cls;
    state_.record(
        journal::NodeExcluded{
            .node = n.name, .instance = state_.instance_name(isolation.instance), .cls = cls},
        "isolating node " + n.name + " (" + state_.instance_name(isolation.instance) +
            "): a spare takes its place at the restart");
  } else {
    state_.record(journal::DiagnosisRestart{.cls = cls, .suspects = isolation.suspects},
                  "restarting the job to test the links of " + name_list(isolation.suspects) +
                      ": the fabric check before the restart excludes the node that loses "
                      "packets");
  }
  feed(HangDetected{isolation.instance,
                    verdict_failure(verdict, state_.plan.fault_tolerance.policy)});
}

bool JobRun::reassign(int instance) {
  const int node = state_.instances[static_cast<std::size_t>(instance)].node;
  return assign_all(state_, "re-assigned " + state_.instance_name(instance) + " to " +
                                state_.nodes[static_cast<std::size_t>(node)].name);
}

}  // namespace pai::launcher::coordinator
