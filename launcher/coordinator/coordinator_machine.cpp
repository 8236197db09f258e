#include "launcher/coordinator/coordinator_machine.h"

#include <exception>
#include <utility>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/fabric_check.h"
#include "launcher/coordinator/job_control.h"
#include "launcher/coordinator/job_lint.h"
#include "launcher/coordinator/job_run.h"
#include "launcher/coordinator/metrics_text.h"
#include "launcher/coordinator/node_checks.h"
#include "launcher/coordinator/peer_address.h"
#include "launcher/coordinator/rendezvous.h"
#include "launcher/coordinator/replacement.h"
#include "launcher/net/frame.h"
#include "launcher/net/heartbeat_rhythm.h"
#include "launcher/net/protocol.h"
#include "launcher/policy/failure_classifier.h"

namespace pai::launcher::coordinator {

struct CoordinatorMachine::Impl {
  Impl(Plan plan, CoordinatorSettings settings, Clock::time_point now)
      : state(std::move(plan), settings, now),
        rendezvous(state),
        control(state),
        beat_period(net::coordinator_beat_intervals(state.plan) * settings.heartbeat_interval),
        next_heartbeat(now + beat_period),
        given_up_after(net::coordinator_misses(state.plan) * settings.heartbeat_interval) {}

  CoordinatorState state;
  Rendezvous rendezvous;
  std::optional<JobRun> job;
  /// The fabric check while it runs (between the rendezvous and the first start).
  std::optional<FabricCheck> fabric;
  bool fabric_ran = false;
  bool lint_ran = false;
  JobControl control;
  /// How often each launcher gets a heartbeat of ours.
  std::chrono::milliseconds beat_period;
  Clock::time_point next_heartbeat;
  /// How long the launchers wait for a beat of this coordinator before they give up on it.
  std::chrono::milliseconds given_up_after;

  /// True when this coordinator beat no launcher for longer than they wait for it (its
  /// process was stopped, its node stalled): they gave up on it and ended their side of the
  /// job, so their connections closing or falling silent is no loss of theirs. The job then
  /// fails, saying so (once).
  bool stalled(Clock::time_point now);

  /// Runs `body` with the state's outbox set; nothing escapes.
  template <class Body>
  std::vector<Action> serve(Body&& body);

  void connected(int session, const Peer& peer);
  void received(int session, const Json& message, Clock::time_point now);
  void launcher_message(int session, const net::NodeToCoordinator& message, Clock::time_point now);
  void join(int session, const net::Join& message, Clock::time_point now);
  void checks(int node, const net::Checks& message, Clock::time_point now);
  /// The job's run, for reports of instances; ProtocolError before the rendezvous completed.
  JobRun& running(const net::NodeToCoordinator& message);
  void reject(int session, const std::string& reason);
  /// Every instance is ready: the fabric check first when the plan asks, then begin_job.
  void rendezvous_complete(Clock::time_point now);
  /// The fabric check is over: its exclusions take effect, then the job begins, waits for a
  /// spare or fails.
  void fabric_over(Clock::time_point now);
  /// Takes `excluded` out of the job (spares take their instances; spares among them are
  /// released), as `check` ("fabric", "lint") run by `who` decided. True when every instance
  /// is ready to start; false when the job waits for a spare or failed (with `report`).
  bool exclude(const std::vector<FabricExclusion>& excluded, const std::string& check,
               const std::string& who, const std::vector<std::string>& report);
  /// The fabric lint of the nodes ready at the rendezvous (job_lint.h): recorded and shown
  /// when it finds anything; with `sanityCheck.lint: exclude` the nodes it may take out are
  /// excluded. As exclude() when it excluded any; true otherwise.
  bool lint_nodes();
  /// The fabric check running, for a node's fabric report: the one after the rendezvous or
  /// the one before a restart; nullptr when the report is late (a check that is over);
  /// ProtocolError when no check ever ran.
  FabricCheck* running_fabric(const net::NodeToCoordinator& message);
  void begin_job(Clock::time_point now);
  /// With settings.takeover, before anything else: the lost node and the nodes out of the job
  /// are excluded; the job fails at once when fewer spares could take their instances.
  void take_over();
  bool taken_over = false;
  void gone(int session, const std::string& why, Clock::time_point now);
  void tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;
};

template <class Body>
std::vector<Action> CoordinatorMachine::Impl::serve(Body&& body) {
  std::vector<Action> out;
  state.out = &out;
  try {
    if (!taken_over) take_over();
    body();
    // Relays of sessions the machine closed itself end here, as they do on disconnected().
    for (std::size_t k = 0; k < state.closed.size(); ++k) {
      control.session_closed(state.closed[k].first, state.closed[k].second);
    }
    if (state.phase != Phase::Finished) {
      for (int node : state.took_instance) control.node_took_instance(node);
    }
  } catch (const std::exception& e) {
    // A bug, not a peer's fault (those are ProtocolErrors, handled where they arise): say so
    // and keep serving the job.
    state.record(journal::InternalError{.error = e.what()},
                 std::string("internal error: ") + e.what());
  }
  state.took_instance.clear();
  state.closed.clear();
  state.out = nullptr;
  return out;
}

void CoordinatorMachine::Impl::connected(int session, const Peer& peer) {
  if (state.phase == Phase::Finished) {
    state.out->emplace_back(std::in_place_type<Close>, session, "the job is over");
    return;
  }
  state.sessions[session] = PeerSession{peer, -1, {}};
  if (peer.kind == "launcher" || peer.kind == "control") return;
  reject(session, "unknown peer kind \"" + peer.kind + "\"");
}

void CoordinatorMachine::Impl::received(int session, const Json& message, Clock::time_point now) {
  auto it = state.sessions.find(session);
  if (it == state.sessions.end() || state.phase == Phase::Finished) return;
  try {
    const int instances = static_cast<int>(state.instances.size());
    if (it->second.launcher()) {
      launcher_message(session, net::parse_node_to_coordinator(message, instances), now);
    } else {
      control.request(session, net::parse_control_request(message), job ? &*job : nullptr, now);
    }
  } catch (const net::ProtocolError& e) {
    it = state.sessions.find(session);
    if (it == state.sessions.end()) return;
    const PeerSession s = it->second;
    const std::string who = s.peer.kind + " " + s.peer.node + " (" + s.peer.address + ")";
    state.record(journal::ProtocolError{.session = session,
                                        .peer = s.peer.kind,
                                        .node = s.peer.node,
                                        .address = s.peer.address,
                                        .error = e.what()},
                 "closing the connection of " + who + ": " + e.what());
    gone(session, std::string("protocol error: ") + e.what(), now);
    state.out->emplace_back(std::in_place_type<Close>, session, e.what());
  }
}

void CoordinatorMachine::Impl::launcher_message(int session, const net::NodeToCoordinator& message,
                                                Clock::time_point now) {
  const int node = state.sessions.at(session).node;
  if (node < 0) {
    const auto* first = std::get_if<net::Join>(&message);
    if (first == nullptr) net::fail(message, "type", "a launcher must send join first");
    join(session, *first, now);
    return;
  }
  std::visit(
      net::Overloaded{
          [&](const net::Join&) {
            net::fail(message, "type",
                      "already joined as node " + state.nodes[static_cast<std::size_t>(node)].name);
          },
          [&](const net::Checks& m) { checks(node, m, now); },
          // Before the rendezvous completed a heartbeat says only that the launcher lives.
          [&](const net::NodeHeartbeat& m) {
            state.metrics.alive(node, now);
            if (!job) return;
            job->heartbeat(node, m, now);  // checks its instances and ranks
            state.metrics.heartbeat(m);
          },
          [&](const net::Exited& m) { running(message).exited(node, m, now); },
          [&](const net::Stopped& m) { running(message).stopped(node, m, now); },
          [&](const net::Hang& m) { running(message).hang(node, m, now); },
          [&](const net::Failure& m) { running(message).failure(node, m); },
          [&](const net::Forensics& m) { running(message).forensics(node, m); },
          [&](const net::Checkpointed& m) { running(message).checkpointed(node, m, now); },
          [&](const net::ExecOutput& m) { control.relay(session, m); },
          [&](const net::ExecExit& m) { control.relay(session, m); },
          [&](const net::Log& m) { control.relay(session, m); },
          [&](const net::LogEnd& m) { control.relay(session, m); },
          [&](const net::FabricListening& m) {
            if (FabricCheck* f = running_fabric(message)) f->listening(node, m, now);
          },
          [&](const net::FabricResult& m) {
            FabricCheck* f = running_fabric(message);
            if (f == nullptr) return;
            f->result(node, m, now);
            if (fabric) {
              if (fabric->done()) fabric_over(now);
            } else {
              job->fabric_progress(now);
            }
          },
          [&](const net::NodeFailed& m) {
            if (auto it = state.sessions.find(session); it != state.sessions.end()) {
              it->second.gave_up = m.reason;
            }
          },
          [&](const net::Cancel& m) {
            state.cancel_job(128 + m.signal,
                             signal_name(m.signal) + " on " +
                                 state.nodes[static_cast<std::size_t>(node)].name);
          },
      },
      message);
}

FabricCheck* CoordinatorMachine::Impl::running_fabric(const net::NodeToCoordinator& message) {
  if (fabric) return &*fabric;
  if (job && job->fabric() != nullptr) return job->fabric();
  if (fabric_ran) return nullptr;  // late: a check that is over
  net::fail(message, "type", "no fabric check is running");
}

JobRun& CoordinatorMachine::Impl::running(const net::NodeToCoordinator& message) {
  if (!job) net::fail(message, "type", "no instance runs before the rendezvous completes");
  return *job;
}

void CoordinatorMachine::Impl::join(int session, const net::Join& message, Clock::time_point now) {
  const std::string& name = message.node;
  std::vector<checks::CheckResult> results = parse_checks(net::Join::kType, message.checks);

  const Peer peer = state.sessions.at(session).peer;
  if (name != peer.node) {
    return reject(session,
                  "join names node " + name + " but the connection authenticated as " + peer.node);
  }
  // Same token, other plan: a node given another compile's plan.json would run other
  // commands, ranks or ports than its peers.
  if (message.seal != state.plan.seal) {
    const auto seal_text = [](const std::string& seal) {
      return seal.empty() ? std::string("no seal") : "seal " + seal;
    };
    return reject(
        session, "node " + name + " runs another plan than the coordinator: its plan.json has " +
                     seal_text(message.seal) + ", the coordinator's " + seal_text(state.plan.seal) +
                     "; give every node the plan.json and job.token of one pai-compile run");
  }
  const int n = state.find_node(name);
  if (n < 0) {
    return reject(session, "node " + name + " is not a host or spare of job " + state.plan.name);
  }
  Node& node = state.nodes[static_cast<std::size_t>(n)];
  if (node.session >= 0) {
    return reject(session, "node " + name + " is already connected from " +
                               state.sessions.at(node.session).peer.address);
  }
  if (!state.settings.addresses_from_peers) {
    const auto planned = numeric_address(node.host.address);
    if (planned && numeric_address(peer.address) != planned) {
      return reject(session, "claims node " + name + " (address " + node.host.address +
                                 ") but connects from " + peer.address);
    }
  } else {
    node.host.address = numeric_address(peer.address).value_or(peer.address);
  }

  if (state.settings.takeover && message.ran_instance && message.ran_attempt) {
    int& ran = state.ran_attempts[*message.ran_instance];
    ran = std::max(ran, *message.ran_attempt);
  }
  node.session = session;
  state.sessions.at(session).node = n;
  node.lost_reason.clear();
  node.replaced_by.clear();
  node.check_attempt = 1;
  apply_checks(node, std::move(results));
  const int max_attempts = state.plan.sanity_check.max_attempts;
  node.last_event = node.health == Health::Ready ? "joined" : "joined; " + node.failed_text();
  state.record(
      journal::Join{.node = name,
                    .address = peer.address,
                    .pid = message.pid,
                    .ready = node.health == Health::Ready,
                    .checks = {message.checks}},
      node.health == Health::Ready ? std::string() : check_failure_line(node, max_attempts));
  if (state.phase == Phase::Rendezvous) {
    if (rendezvous.node_checked(n, now)) rendezvous_complete(now);
  } else {
    job->node_joined(n, now);
  }
}

void CoordinatorMachine::Impl::checks(int node, const net::Checks& message, Clock::time_point now) {
  std::vector<checks::CheckResult> results = parse_checks(net::Checks::kType, message.checks);
  Node& n = state.nodes[static_cast<std::size_t>(node)];
  if (n.health != Health::Checking) net::fail(message, "checks", "no check run was requested");
  apply_checks(n, std::move(results));
  const bool ready = n.health == Health::Ready;
  n.last_event = ready ? "checks passed (attempt " + std::to_string(n.check_attempt) + ")"
                       : n.failed_text() + " (attempt " + std::to_string(n.check_attempt) + ")";
  state.record(
      journal::Checks{
          .node = n.name, .attempt = n.check_attempt, .ready = ready, .checks = {message.checks}},
      ready ? std::string() : check_failure_line(n, state.plan.sanity_check.max_attempts));
  if (state.phase == Phase::Rendezvous) {
    if (rendezvous.node_checked(node, now)) rendezvous_complete(now);
  } else {
    job->node_checked(node, now);
  }
}

void CoordinatorMachine::Impl::reject(int session, const std::string& reason) {
  const Peer peer = state.sessions.at(session).peer;
  state.record(
      journal::PeerRejected{
          .peer = peer.kind, .node = peer.node, .address = peer.address, .reason = reason},
      "rejected " + peer.kind + " " + peer.node + " from " + peer.address + ": " + reason);
  // The refused launcher says why, not just that the connection closed.
  if (peer.kind == "launcher") {
    state.send(session, net::Finish{2, "refused by the coordinator: " + reason});
  }
  state.close(session, reason);
}

void CoordinatorMachine::Impl::rendezvous_complete(Clock::time_point now) {
  if (fabric) return;  // fabric_over() goes on
  if (!lint_ran) {
    lint_ran = true;
    if (!lint_nodes()) return;
  }
  if (state.plan.sanity_check.enabled && state.plan.sanity_check.fabric.enabled && !fabric_ran) {
    fabric_ran = true;
    fabric.emplace(state);
    if (fabric->start(now)) return;
    fabric.reset();
  }
  begin_job(now);
}

void CoordinatorMachine::Impl::fabric_over(Clock::time_point now) {
  const std::vector<FabricExclusion> excluded = fabric->exclusions();
  const std::vector<std::string> report = fabric->report();
  fabric.reset();
  if (exclude(excluded, "fabric", "the fabric check", report)) begin_job(now);
}

bool CoordinatorMachine::Impl::exclude(const std::vector<FabricExclusion>& excluded,
                                       const std::string& check, const std::string& who,
                                       const std::vector<std::string>& report) {
  for (const FabricExclusion& e : excluded) {
    Node& n = state.nodes[static_cast<std::size_t>(e.node)];
    n.excluded = e.why;
    n.health = Health::Failed;
    n.failed_checks = check;
    n.check_summary = e.why;
    n.last_event = "excluded: " + e.why;
    state.record(journal::NodeExcluded{.node = n.name, .reason = e.why},
                 n.name + " excluded: " + e.why);
    if (n.instance < 0) state.release(e.node, "spare " + n.name + " is not used: " + e.why);
  }
  replace_failed_nodes(state);
  if (state.unready_instances().empty()) return true;
  if (state.spare_may_join()) {
    // Left to the rendezvous: a spare that joins takes the instance, or its timeout fails.
    state.record(journal::WaitingForSpare{.checks = check},
                 who + " excluded nodes holding instances; waiting for a spare to join");
    return false;
  }
  std::string reason = who + " excluded nodes holding instances and no ready spare is left";
  std::string line = "job failed: " + reason;
  for (const std::string& row : report) line += "\n" + row;
  state.finish_job(1, reason + ": " + (report.empty() ? "" : report.front()),
                   journal::JobFailed{.reason = reason, .exit_code = 1, .report = report}, line);
  return false;
}

bool CoordinatorMachine::Impl::lint_nodes() {
  std::vector<int> ready;
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    const Node& n = state.nodes[k];
    if (n.session >= 0 && n.health == Health::Ready) ready.push_back(static_cast<int>(k));
  }
  const auto facts = facts_of(state, ready);
  const LintReport report = lint_fabric(facts, lint_plan(state.plan));
  const auto disagree = disagreements(facts, report);
  if (report.outliers.empty() && report.contradictions.empty() && disagree.empty()) return true;
  journal::FabricLint record;
  for (const LintFinding& f : report.outliers) {
    record.outliers.push_back({f.node, f.key, f.value, f.majority});
  }
  for (const LintFinding& f : report.contradictions) {
    record.contradictions.push_back({f.node, f.key, f.value, f.why});
  }
  for (const auto& [key, values] : disagree) record.disagreements.push_back({key, values});
  std::vector<FabricExclusion> excluded;
  if (state.plan.sanity_check.lint == LintAction::Exclude) {
    for (const std::string& name : report.excludable) {
      const int node = state.find_node(name);
      if (node < 0) continue;
      excluded.push_back({node, "fabric lint: " + first_finding(report, name)});
      record.excluded.push_back(name);
    }
  }
  const std::vector<std::string> lines = lint_lines(report, disagree);
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "warning: " : "\nwarning: ") + line;
  state.record(std::move(record), text);
  return excluded.empty() || exclude(excluded, "lint", "the fabric lint", lines);
}

void CoordinatorMachine::Impl::take_over() {
  taken_over = true;
  if (!state.settings.takeover) return;
  const Takeover& takeover = *state.settings.takeover;
  std::map<std::string, std::string> out = takeover.state.out;
  out[takeover.lost_node] = "its launcher coordinated the job and was lost";
  int instances_out = 0;
  for (const auto& [name, why] : out) {
    const int k = state.find_node(name);
    if (k < 0) continue;  // a node of another placement (Slurm): nothing of this job
    Node& n = state.nodes[static_cast<std::size_t>(k)];
    n.excluded = why;
    n.health = Health::Failed;
    n.failed_checks = "coordinator";
    n.check_summary = why;
    n.last_event = "excluded: " + why;
    if (n.instance >= 0) ++instances_out;
    state.record(journal::NodeExcluded{.node = n.name, .reason = why}, n.name + " excluded: " + why);
  }
  int spares = 0;
  for (const Node& n : state.nodes) {
    if (n.instance < 0 && n.excluded.empty()) ++spares;
  }
  if (instances_out > spares) {
    const std::string reason = "the coordinator on " + takeover.lost_node +
                               " was lost and no spare is left to take the instances of " +
                               std::to_string(instances_out) + " node(s) out of the job";
    state.finish_job(1, reason, journal::JobFailed{.reason = reason, .exit_code = 1},
                     "job failed: " + reason);
  }
}

void CoordinatorMachine::Impl::begin_job(Clock::time_point now) {
  state.phase = Phase::Running;
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(now - state.started);
  if (!assign_all(state, "rendezvous complete: " + std::to_string(state.instances.size()) +
                             " nodes ready after " + duration_text(took))) {
    return;
  }
  std::vector<int> ready;
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    Node& n = state.nodes[k];
    if (n.session < 0 || n.health != Health::Ready) continue;
    ready.push_back(static_cast<int>(k));
    if (n.instance >= 0) {
      n.last_event = "assigned " + state.instance_name(n.instance);
    } else {
      n.last_event = "standing by";
      state.send_to_node(static_cast<int>(k), net::Standby{});
    }
  }
  job.emplace(state);
  job->start(now);
}

bool CoordinatorMachine::Impl::stalled(Clock::time_point now) {
  if (state.phase == Phase::Finished) return false;
  const auto since_beat = now - (next_heartbeat - beat_period);
  if (since_beat <= given_up_after) return false;
  const std::string reason =
      "this coordinator sent no heartbeat for " +
      seconds_text(std::chrono::duration_cast<std::chrono::milliseconds>(since_beat)) +
      " (its process was stopped or its node stalled), longer than its launchers wait for it (" +
      seconds_text(given_up_after) +
      "): they ended the job on their side, nothing can be "
      "restarted from here";
  state.finish_job(1, reason, journal::JobFailed{.reason = reason, .exit_code = 1},
                   "job failed: " + reason);
  return true;
}

void CoordinatorMachine::Impl::gone(int session, const std::string& why, Clock::time_point now) {
  auto it = state.sessions.find(session);
  if (it == state.sessions.end()) return;
  if (it->second.launcher() && stalled(now)) return;
  const int node = it->second.node;
  const Peer peer = it->second.peer;
  // A launcher that said why it gave up is lost for that reason, not its closed connection.
  const std::string reason = it->second.gave_up.empty() ? why : "failed: " + it->second.gave_up;
  state.sessions.erase(it);
  control.session_closed(session, why);
  if (node < 0) return;
  Node& n = state.nodes[static_cast<std::size_t>(node)];
  if (n.session != session) return;
  n.session = -1;
  n.health = Health::Absent;
  if (state.phase == Phase::Rendezvous) {
    n.last_event = "disconnected: " + reason;
    state.record(journal::Disconnected{.node = n.name, .reason = reason});
    rendezvous.node_lost(node, now);
    if (fabric) {
      fabric->node_lost(node, now);
      if (fabric->done()) fabric_over(now);
    }
  } else if (state.phase == Phase::Running) {
    job->node_lost(node, reason, now);
  }
}

void CoordinatorMachine::Impl::tick(Clock::time_point now) {
  if (state.phase == Phase::Finished || stalled(now)) return;
  if (now >= next_heartbeat) {
    for (const auto& [id, session] : state.sessions) {
      if (session.launcher()) state.send(id, net::CoordinatorToNode{net::Heartbeat{}});
    }
    next_heartbeat = now + beat_period;
  }
  if (fabric) {
    fabric->tick(now);
    if (fabric->done()) fabric_over(now);
  } else if (state.phase == Phase::Rendezvous) {
    if (rendezvous.tick(now)) rendezvous_complete(now);
  } else if (job) {
    job->tick(now);
  }
}

std::optional<Clock::time_point> CoordinatorMachine::Impl::next_deadline() const {
  if (state.phase == Phase::Finished) return std::nullopt;
  Clock::time_point next = next_heartbeat;
  for (auto t : {fabric ? fabric->next_deadline() : rendezvous.next_deadline(),
                 job ? job->next_deadline() : std::nullopt}) {
    if (t && *t < next) next = *t;
  }
  return next;
}

// ---- The public face ----

CoordinatorMachine::CoordinatorMachine(Plan plan, CoordinatorSettings settings,
                                       Clock::time_point now)
    : impl_(std::make_unique<Impl>(std::move(plan), settings, now)) {}

CoordinatorMachine::~CoordinatorMachine() = default;
CoordinatorMachine::CoordinatorMachine(CoordinatorMachine&&) noexcept = default;

std::vector<Action> CoordinatorMachine::connected(int session, const Peer& peer,
                                                  Clock::time_point) {
  return impl_->serve([&] { impl_->connected(session, peer); });
}

std::vector<Action> CoordinatorMachine::received(int session, const Json& message,
                                                 Clock::time_point now) {
  return impl_->serve([&] { impl_->received(session, message, now); });
}

std::vector<Action> CoordinatorMachine::disconnected(int session, const std::string& why,
                                                     Clock::time_point now) {
  return impl_->serve([&] {
    if (impl_->state.phase != Phase::Finished) impl_->gone(session, why, now);
  });
}

std::vector<Action> CoordinatorMachine::cut_off(const std::string& reason, Clock::time_point) {
  return impl_->serve([&] {
    if (impl_->state.phase == Phase::Finished) return;
    impl_->state.finish_job(1, reason, journal::JobFailed{.reason = reason, .exit_code = 1},
                            "job failed: " + reason);
  });
}

std::vector<Action> CoordinatorMachine::tick(Clock::time_point now) {
  return impl_->serve([&] { impl_->tick(now); });
}

std::optional<Clock::time_point> CoordinatorMachine::next_deadline() const {
  return impl_->next_deadline();
}

bool CoordinatorMachine::finished() const { return impl_->state.phase == Phase::Finished; }

std::vector<Action> CoordinatorMachine::goodput(const GoodputReading& reading) {
  return impl_->serve([&] {
    impl_->state.metrics.goodput(reading);
    if (impl_->job && impl_->state.phase == Phase::Running) {
      impl_->job->measured_saves(reading.checkpoint_cost_seconds, reading.checkpoint_saves);
    }
  });
}

std::string CoordinatorMachine::metrics(Clock::time_point now) const {
  return metrics_text(impl_->state, impl_->job ? &*impl_->job : nullptr, now);
}

}  // namespace pai::launcher::coordinator
