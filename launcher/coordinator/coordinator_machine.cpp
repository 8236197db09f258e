#include "launcher/coordinator/coordinator_machine.h"

#include <exception>
#include <utility>

#include "launcher/coordinator/coordinator_state.h"
#include "launcher/coordinator/job_control.h"
#include "launcher/coordinator/job_run.h"
#include "launcher/coordinator/node_checks.h"
#include "launcher/coordinator/peer_address.h"
#include "launcher/coordinator/rendezvous.h"
#include "launcher/coordinator/replacement.h"
#include "launcher/net/frame.h"
#include "launcher/net/message.h"

namespace pai::launcher::coordinator {

struct CoordinatorMachine::Impl {
  Impl(Plan plan, CoordinatorSettings settings, Clock::time_point now)
      : state(std::move(plan), settings, now),
        rendezvous(state),
        control(state),
        next_heartbeat(now + settings.heartbeat_interval) {}

  CoordinatorState state;
  Rendezvous rendezvous;
  std::optional<JobRun> job;
  JobControl control;
  Clock::time_point next_heartbeat;

  /// Runs `body` with the state's outbox set; nothing escapes.
  template <class Body>
  std::vector<Action> serve(Body&& body);

  void connected(int session, const Peer& peer);
  void received(int session, const Json& message, Clock::time_point now);
  void dispatch(int session, const net::MessageReader& message, Clock::time_point now);
  void join(int session, const net::MessageReader& message, Clock::time_point now);
  void checks(int node, const net::MessageReader& message, Clock::time_point now);
  void reject(int session, const std::string& reason);
  void begin_job(Clock::time_point now);
  void gone(int session, const std::string& why, Clock::time_point now);
  void tick(Clock::time_point now);
  std::optional<Clock::time_point> next_deadline() const;
};

template <class Body>
std::vector<Action> CoordinatorMachine::Impl::serve(Body&& body) {
  std::vector<Action> out;
  state.out = &out;
  try {
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
    state.record("internal-error", Json{{"error", e.what()}},
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
  state.sessions[session] = PeerSession{peer, -1};
  if (peer.kind == "launcher" || peer.kind == "control") return;
  reject(session, "unknown peer kind \"" + peer.kind + "\"");
}

void CoordinatorMachine::Impl::received(int session, const Json& message, Clock::time_point now) {
  auto it = state.sessions.find(session);
  if (it == state.sessions.end() || state.phase == Phase::Finished) return;
  try {
    const net::MessageReader reader(message);
    dispatch(session, reader, now);
  } catch (const net::ProtocolError& e) {
    it = state.sessions.find(session);
    if (it == state.sessions.end()) return;
    const PeerSession s = it->second;
    const std::string who = s.peer.kind + " " + s.peer.node + " (" + s.peer.address + ")";
    state.record("protocol-error",
                 Json{{"session", session},
                      {"peer", s.peer.kind},
                      {"node", s.peer.node},
                      {"address", s.peer.address},
                      {"error", e.what()}},
                 "closing the connection of " + who + ": " + e.what());
    gone(session, std::string("protocol error: ") + e.what(), now);
    state.out->emplace_back(std::in_place_type<Close>, session, e.what());
  }
}

void CoordinatorMachine::Impl::dispatch(int session, const net::MessageReader& message,
                                        Clock::time_point now) {
  const PeerSession& s = state.sessions.at(session);
  const std::string& type = message.type();
  if (!s.launcher()) {
    control.request(session, message, job ? &*job : nullptr, now);
    return;
  }
  if (s.node < 0) {
    if (type != "join") message.fail("type", "a launcher must send join first");
    join(session, message, now);
    return;
  }
  const int node = s.node;
  if (type == "checks") {
    checks(node, message, now);
  } else if (type == "heartbeat") {
    if (job) {
      job->heartbeat(node, message, now);
    } else {
      message.array("instances");
    }
  } else if (type == "exited" || type == "stopped" || type == "hang" || type == "failure") {
    if (!job) message.fail("type", "no instance runs before the rendezvous completes");
    if (type == "exited") job->exited(node, message, now);
    if (type == "stopped") job->stopped(node, message, now);
    if (type == "hang") job->hang(node, message, now);
    if (type == "failure") job->failure(node, message);
  } else if (type == "join") {
    message.fail("type",
                 "already joined as node " + state.nodes[static_cast<std::size_t>(node)].name);
  } else if (!control.relay(session, message)) {
    message.fail("type", "not a launcher message");
  }
}

void CoordinatorMachine::Impl::join(int session, const net::MessageReader& message,
                                    Clock::time_point now) {
  const std::string name = message.string("node");
  const Json& list = message.array("checks");
  const std::int64_t pid = message.int64("pid");
  std::vector<checks::CheckResult> results = parse_checks("join", list);

  const Peer peer = state.sessions.at(session).peer;
  if (name != peer.node) {
    return reject(session,
                  "join names node " + name + " but the connection authenticated as " + peer.node);
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

  node.session = session;
  state.sessions.at(session).node = n;
  node.lost_reason.clear();
  node.replaced_by.clear();
  node.check_attempt = 1;
  apply_checks(node, std::move(results));
  const int max_attempts = state.plan.sanity_check.max_attempts;
  node.last_event = node.health == Health::Ready ? "joined" : "joined; " + node.failed_text();
  state.record(
      "join",
      Json{{"node", name},
           {"address", peer.address},
           {"pid", pid},
           {"ready", node.health == Health::Ready},
           {"checks", list}},
      node.health == Health::Ready ? std::string() : check_failure_line(node, max_attempts));
  if (state.phase == Phase::Rendezvous) {
    if (rendezvous.node_checked(n, now)) begin_job(now);
  } else {
    job->node_joined(n, now);
  }
}

void CoordinatorMachine::Impl::checks(int node, const net::MessageReader& message,
                                      Clock::time_point now) {
  const Json& list = message.array("checks");
  std::vector<checks::CheckResult> results = parse_checks("checks", list);
  Node& n = state.nodes[static_cast<std::size_t>(node)];
  if (n.health != Health::Checking) message.fail("checks", "no check run was requested");
  apply_checks(n, std::move(results));
  const bool ready = n.health == Health::Ready;
  n.last_event = ready ? "checks passed (attempt " + std::to_string(n.check_attempt) + ")"
                       : n.failed_text() + " (attempt " + std::to_string(n.check_attempt) + ")";
  state.record(
      "checks",
      Json{{"node", n.name}, {"attempt", n.check_attempt}, {"ready", ready}, {"checks", list}},
      ready ? std::string() : check_failure_line(n, state.plan.sanity_check.max_attempts));
  if (state.phase == Phase::Rendezvous) {
    if (rendezvous.node_checked(node, now)) begin_job(now);
  } else {
    job->node_checked(node, now);
  }
}

void CoordinatorMachine::Impl::reject(int session, const std::string& reason) {
  const Peer peer = state.sessions.at(session).peer;
  state.record(
      "peer-rejected",
      Json{{"peer", peer.kind}, {"node", peer.node}, {"address", peer.address}, {"reason", reason}},
      "rejected " + peer.kind + " " + peer.node + " from " + peer.address + ": " + reason);
  // The refused launcher says why, not just that the connection closed.
  if (peer.kind == "launcher") {
    state.send(session, Json{{"type", "finish"},
                             {"exitCode", 2},
                             {"reason", "refused by the coordinator: " + reason}});
  }
  state.close(session, reason);
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
      state.send_to_node(static_cast<int>(k), Json{{"type", "standby"}});
    }
  }
  compare_facts(state, ready);
  job.emplace(state);
  job->start(now);
}

void CoordinatorMachine::Impl::gone(int session, const std::string& why, Clock::time_point now) {
  auto it = state.sessions.find(session);
  if (it == state.sessions.end()) return;
  const int node = it->second.node;
  const Peer peer = it->second.peer;
  state.sessions.erase(it);
  control.session_closed(session, why);
  if (node < 0) return;
  Node& n = state.nodes[static_cast<std::size_t>(node)];
  if (n.session != session) return;
  n.session = -1;
  n.health = Health::Absent;
  if (state.phase == Phase::Rendezvous) {
    n.last_event = "disconnected: " + why;
    state.record("disconnected", Json{{"node", n.name}, {"reason", why}});
    rendezvous.node_lost(now);
  } else if (state.phase == Phase::Running) {
    job->node_lost(node, why, now);
  }
}

void CoordinatorMachine::Impl::tick(Clock::time_point now) {
  if (state.phase == Phase::Finished) return;
  if (now >= next_heartbeat) {
    for (const auto& [id, session] : state.sessions) {
      if (session.launcher()) state.send(id, Json{{"type", "heartbeat"}});
    }
    next_heartbeat = now + state.settings.heartbeat_interval;
  }
  if (state.phase == Phase::Rendezvous) {
    if (rendezvous.tick(now)) begin_job(now);
  } else if (job) {
    job->tick(now);
  }
}

std::optional<Clock::time_point> CoordinatorMachine::Impl::next_deadline() const {
  if (state.phase == Phase::Finished) return std::nullopt;
  Clock::time_point next = next_heartbeat;
  for (auto t : {rendezvous.next_deadline(), job ? job->next_deadline() : std::nullopt}) {
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

std::vector<Action> CoordinatorMachine::tick(Clock::time_point now) {
  return impl_->serve([&] { impl_->tick(now); });
}

std::optional<Clock::time_point> CoordinatorMachine::next_deadline() const {
  return impl_->next_deadline();
}

bool CoordinatorMachine::finished() const { return impl_->state.phase == Phase::Finished; }

}  // namespace pai::launcher::coordinator
