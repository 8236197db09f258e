#include "launcher/coordinator/status_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace pai::launcher::coordinator {

std::string node_state(const CoordinatorState& state, int node) {
  const Node& n = state.nodes.at(static_cast<std::size_t>(node));
  if (n.instance < 0 && !n.replaced_by.empty()) return "replaced";
  if (n.session < 0) return "no-connection";
  if (n.health == Health::Checking) return "checking";
  if (n.health == Health::Failed) return "failed";
  if (n.instance < 0) return state.phase == Phase::Rendezvous ? "ready" : "standby";
  const Instance& inst = state.instances[static_cast<std::size_t>(n.instance)];
  if (inst.start_pending) return "ready";
  switch (inst.run) {
    case Run::Waiting:
      return "ready";
    case Run::Running:
    case Run::Stopping:
      return "running";
    case Run::Stopped:
      return "stopped";
    case Run::Succeeded:
      return "succeeded";
    case Run::Failed:
      return "failed";
  }
  return "ready";
}

net::StatusReply status_message(const CoordinatorState& state, const RunView* job,
                                Clock::time_point now) {
  net::StatusReply reply;
  reply.job = state.plan.name;
  reply.phase = "rendezvous";
  if (state.phase == Phase::Finished) {
    reply.phase = "finished";
    if (state.ended) {
      reply.outcome = job_outcome(*state.ended);
      reply.exit_code = state.ended->exit_code;
      reply.reason = state.ended->reason;
    }
  } else if (state.phase == Phase::Running) {
    reply.phase = job != nullptr && job->paused() ? "paused" : "running";
  }
  for (std::size_t k = 0; k < state.nodes.size(); ++k) {
    const Node& n = state.nodes[k];
    net::NodeStatus entry;
    entry.node = n.name;
    entry.address = n.host.address;
    entry.instance = n.instance;
    entry.state = node_state(state, static_cast<int>(k));
    entry.last_event = n.last_event;
    if (n.instance >= 0) {
      const Placement& p = state.placed.placements[static_cast<std::size_t>(n.instance)];
      entry.role = p.role;
      entry.index = p.index;
      entry.ranks = {p.first_rank, last_rank(state.placed, p)};
      if (job != nullptr) entry.restarts = job->restart_count(n.instance);
      const Instance& inst = state.instances[static_cast<std::size_t>(n.instance)];
      if (inst.started) entry.attempt = inst.attempt;
      if (inst.started && (inst.run == Run::Running || inst.run == Run::Stopping)) {
        entry.elapsed_ms = std::max<std::int64_t>(
            0, std::chrono::duration_cast<std::chrono::milliseconds>(now - *inst.started).count());
      }
      if (inst.run == Run::Running && inst.heartbeat) {
        entry.usage = inst.heartbeat->ranks;
        entry.telemetry = inst.heartbeat->telemetry;
        entry.gpus = inst.gpus;
      }
    }
    reply.nodes.push_back(std::move(entry));
  }
  if (const auto& g = state.metrics.goodput()) {
    reply.ettr_basis_points = static_cast<int>(std::lround(std::clamp(g->ettr, 0.0, 1.0) * 1e4));
    reply.goodput_journals = g->journals;
  }
  return reply;
}

}  // namespace pai::launcher::coordinator
