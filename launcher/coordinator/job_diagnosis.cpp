#include "launcher/coordinator/job_diagnosis.h"

#include <algorithm>
#include <chrono>

#include "launcher/policy/tcp_slow_peers.h"
#include "libpai/enum_names.h"

namespace pai::launcher::coordinator {

namespace {

// Samples close a round when every rank has sent one, and heartbeats come once a second:
// judging more often finds nothing new, and at 65,536 ranks costs a core.
constexpr auto kDecideEvery = std::chrono::seconds(1);
// An NCCL link with transfers in flight and none completed for this long counts as stalled.
constexpr std::int64_t kNcclStalledMs = 1000;

DiagnosisSettings settings_of(const DiagnosisPolicy& policy) {
  DiagnosisSettings s;
  s.hang_seconds = policy.hang_seconds;
  s.slow_factor = policy.slow_factor;
  s.slow_windows = policy.slow_windows;
  s.rtt_factor = policy.rtt_factor;
  return s;
}

}  // namespace

Classification verdict_failure(const Diagnosis& verdict, RestartPolicy policy) {
  const std::string cls = to_string(verdict.cls);
  Classification c;
  c.retryable = policy != RestartPolicy::Never;
  c.signature = "diagnosis:" + cls;
  c.reason = cls + ": " + verdict.evidence +
             (c.retryable ? ": retryable" : ": not retryable (policy never)");
  return c;
}

JobDiagnosis::JobDiagnosis(const CoordinatorState& state)
    : state_(state),
      enabled_(state.plan.fault_tolerance.diagnosis.enabled),
      diagnoser_(process_count(state.plan), settings_of(state.plan.fault_tolerance.diagnosis)) {}

void JobDiagnosis::observe(int node, const net::HeartbeatInstance& beat, Clock::time_point now) {
  if (!enabled_ || beat.telemetry.empty()) return;
  const Placement& p = state_.placed.placements[static_cast<std::size_t>(beat.instance)];
  const Role* role = find_role(state_.placed, p.role);
  const bool gpus = role != nullptr && role->resources.gpu > 0;
  const std::string& node_name = state_.nodes[static_cast<std::size_t>(node)].name;
  for (const net::RankTelemetry& t : beat.telemetry) {
    RankSample s;
    s.rank = static_cast<int>(t.rank);
    s.node = node;
    s.node_name = node_name;
    s.gpu = gpus ? static_cast<int>(t.rank - p.first_rank) : -1;
    s.step = t.step;
    s.steps = t.steps;
    s.step_us = t.step_us;
    s.window_us = t.window_us;
    s.comm_us = t.comm_us;
    s.entered = t.entered;
    s.exited = t.exited;
    s.open_ms = t.open_ms;
    s.open_op = t.op;
    s.quiet_ms = t.quiet_ms;
    s.tcp_rtt_us = t.tcp_rtt_us;
    s.tcp_retrans = t.tcp_retrans;
    for (const std::string& peer : t.tcp_slow_peers) {
      const int peer_node = node_at(peer, now);
      if (peer_node >= 0) s.slow_peer_nodes.push_back(peer_node);
    }
    for (const std::string& peer : t.tcp_stalled_peers) {
      const int peer_node = node_at(peer, now);
      if (peer_node >= 0) s.stalled_peer_nodes.push_back(peer_node);
    }
    // NCCL's own links (the plugin's per-peer figures): sends as rates, stalls as stalled
    // connections are on TCP.
    for (const net::NcclPeer& peer : t.nccl_peers) {
      const int peer_node = node_of_rank(peer.peer);
      if (peer_node < 0) continue;
      if (peer.dir == "send" && peer.busy_us > 0) {
        s.nccl_sends.push_back(
            {node, peer_node, static_cast<double>(peer.bytes), static_cast<double>(peer.busy_us)});
      }
      const bool listed = std::find(s.stalled_peer_nodes.begin(), s.stalled_peer_nodes.end(),
                                    peer_node) != s.stalled_peer_nodes.end();
      if (peer.stalled_ms >= kNcclStalledMs && !listed &&
          s.stalled_peer_nodes.size() < kMaxSlowPeers) {
        s.stalled_peer_nodes.push_back(peer_node);
      }
    }
    observed_ = diagnoser_.observe(s, now) || observed_;
  }
}

int JobDiagnosis::node_at(const std::string& address, Clock::time_point now) {
  auto it = nodes_by_address_.find(address);
  // Addresses change only when a launcher joins (addresses_from_peers): an unknown one (a
  // storage server, say) rebuilds the index at most once a second.
  if (it == nodes_by_address_.end() && (!indexed_ || now - *indexed_ >= kDecideEvery)) {
    indexed_ = now;
    nodes_by_address_.clear();
    for (std::size_t i = 0; i < state_.nodes.size(); ++i) {
      nodes_by_address_.emplace(state_.nodes[i].host.address, static_cast<int>(i));
    }
    it = nodes_by_address_.find(address);
  }
  return it == nodes_by_address_.end() ? -1 : it->second;
}

std::optional<Clock::time_point> JobDiagnosis::next_due() const {
  if (!enabled_ || !observed_) return std::nullopt;
  return last_decided_ ? *last_decided_ + kDecideEvery : Clock::time_point{};
}

std::vector<Diagnosis> JobDiagnosis::decide(Clock::time_point now) {
  const auto due = next_due();
  if (!due || now < *due) return {};
  last_decided_ = now;
  std::vector<Diagnosis> verdicts = diagnoser_.decide(now);
  for (const Diagnosis& v : verdicts) {
    const bool hang =
        v.cls == DiagnosisClass::RankNonCommHang || v.cls == DiagnosisClass::RankCommHang;
    if (hang && (v.rank >= 0 || v.node >= 0)) hang_culprit_ = v;
  }
  return verdicts;
}

void JobDiagnosis::restarted(int instance) {
  const Placement& p = state_.placed.placements[static_cast<std::size_t>(instance)];
  for (int r = p.first_rank; r <= last_rank(state_.placed, p); ++r) diagnoser_.forget(r);
  if (hang_culprit_ && instance_of(*hang_culprit_) == instance) hang_culprit_.reset();
}

int JobDiagnosis::node_of_rank(std::int64_t rank) const {
  for (const Placement& p : state_.placed.placements) {
    if (rank >= p.first_rank && rank <= last_rank(state_.placed, p)) {
      const int instance = static_cast<int>(&p - state_.placed.placements.data());
      return state_.instances[static_cast<std::size_t>(instance)].node;
    }
  }
  return -1;
}

int JobDiagnosis::instance_of(const Diagnosis& verdict) const {
  if (verdict.rank >= 0) {
    for (std::size_t i = 0; i < state_.placed.placements.size(); ++i) {
      const Placement& p = state_.placed.placements[i];
      if (verdict.rank >= p.first_rank && verdict.rank <= last_rank(state_.placed, p)) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  if (verdict.node < 0 || verdict.node >= static_cast<int>(state_.nodes.size())) return -1;
  return state_.nodes[static_cast<std::size_t>(verdict.node)].instance;
}

std::optional<Isolation> JobDiagnosis::isolation(const Diagnosis& verdict,
                                                 bool links_testable) const {
  const int instance = instance_of(verdict);
  if (instance >= 0) {
    const Instance& inst = state_.instances[static_cast<std::size_t>(instance)];
    const Node& n = state_.nodes[static_cast<std::size_t>(inst.node)];
    if (inst.run != Run::Running || !n.excluded.empty()) return std::nullopt;
    return Isolation{.instance = instance, .exclude_node = inst.node, .suspects = {}};
  }
  if (verdict.cls != DiagnosisClass::RankCommHang || !links_testable) return std::nullopt;
  Isolation isolation;
  for (int node : verdict.suspect_nodes) {
    if (node < 0 || node >= static_cast<int>(state_.nodes.size())) continue;
    const Node& n = state_.nodes[static_cast<std::size_t>(node)];
    isolation.suspects.push_back(n.name);
    // The restart is charged to the first suspect whose instance runs.
    if (isolation.instance >= 0 || n.instance < 0) continue;
    if (state_.instances[static_cast<std::size_t>(n.instance)].run == Run::Running) {
      isolation.instance = n.instance;
    }
  }
  if (isolation.instance < 0) return std::nullopt;  // nothing of it runs: a restart is under way
  return isolation;
}

}  // namespace pai::launcher::coordinator
