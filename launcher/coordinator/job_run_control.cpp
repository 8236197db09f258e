#include <csignal>
#include <cstdio>

#include "launcher/coordinator/job_run.h"
#include "libpai/duration.h"

// JobRun's side of job control (`pai-launch stop|start|kill|checkpoint-now`): pausing and
// resuming through JobPause, killing an instance as a failure, the ranks' checkpoint advice
// through JobCheckpoints.

namespace pai::launcher::coordinator {

ControlAnswer JobRun::pause(const std::string& who, Clock::time_point now) {
  now_ = now;
  return pause_.pause(who);
}

ControlAnswer JobRun::resume(const std::string& who, Clock::time_point now) {
  now_ = now;
  if (swap_.phase() == JobSwap::Phase::Stopping) {
    return {false, "a swap of node " + swap_.cause().node_name +
                       " is stopping the job: it starts again by itself once its instances "
                       "stopped"};
  }
  return restart_paused(who);
}

ControlAnswer JobRun::restart_paused(const std::string& who) {
  std::vector<int> starting;
  const ControlAnswer answer = pause_.resume(who, starting);
  for (int i : starting) {
    start_instance(i, policy_.restart_count(i), false);
    if (state_.phase != Phase::Running) break;
  }
  if (answer.ok) start_ready();
  return answer;
}

ControlAnswer JobRun::kill(const std::string& instance, const std::string& who) {
  const int i = state_.find_instance(instance);
  if (i < 0) return {false, "no instance named \"" + instance + "\" in the job"};
  if (paused()) return {false, "the job is paused; start it first"};
  Instance& inst = state_.instances[static_cast<std::size_t>(i)];
  const Node& n = state_.nodes[static_cast<std::size_t>(inst.node)];
  if (inst.run != Run::Running) return {false, instance + " is not running"};
  if (!state_.send_to_node(inst.node, net::Kill{i})) {
    return {false, instance + ": node " + n.name + " is not connected"};
  }
  state_.record(journal::Kill{.instance = instance, .node = n.name, .by = who},
                "killing " + instance + " on " + n.name + " (requested by " + who + ")");
  return {true, "killing " + instance + " on " + n.name};
}

ControlAnswer JobRun::inject(const net::InjectRequest& m, const std::string& who) {
  const int i = state_.find_instance(m.instance);
  if (i < 0) return {false, "no instance named \"" + m.instance + "\" in the job"};
  if (paused()) return {false, "the job is paused; start it first"};
  const Instance& inst = state_.instances[static_cast<std::size_t>(i)];
  const Node& n = state_.nodes[static_cast<std::size_t>(inst.node)];
  if (inst.run != Run::Running) return {false, m.instance + " is not running"};
  const Placement& p = state_.placed.placements[static_cast<std::size_t>(i)];
  const int ranks = last_rank(state_.placed, p) - p.first_rank + 1;
  if (m.rank >= ranks) {
    return {false, m.instance + " has local ranks 0 to " + std::to_string(ranks - 1) + ", not " +
                       std::to_string(m.rank)};
  }
  const char* fault = to_string(m.fault);
  if (m.fault == DrillFault::NodeLoss && n.name == state_.settings.own_node) {
    return {false, "node " + n.name + " serves the coordinator: losing it ends the job, so a " +
                       fault + " drill takes another instance's node"};
  }
  if (!state_.send_to_node(inst.node, net::Inject{i, m.rank, m.fault, m.seconds})) {
    return {false, m.instance + ": node " + n.name + " is not connected"};
  }
  const std::int64_t rank = on_node(m.fault) ? -1 : p.first_rank + m.rank;
  const std::string what = std::string(fault) + " into " +
                           (m.fault == DrillFault::NodeLoss ? "the launcher of " + n.name
                            : on_link(m.fault) ? "the link of " + n.name + " (" + m.instance + ")"
                            : m.fault == DrillFault::DiskFull
                                ? "the output folder's disk of " + n.name + " (" + m.instance + ")"
                            : m.fault == DrillFault::SlowGpu
                                ? "the GPU of " + m.instance + " rank " + std::to_string(rank) +
                                      " (GPU " + std::to_string(m.rank) + ") on " + n.name
                                : m.instance + " rank " + std::to_string(rank) + " on " + n.name);
  state_.record(journal::FaultInjected{.fault = fault,
                                       .instance = m.instance,
                                       .rank = rank,
                                       .seconds = bounded(m.fault) ? m.seconds : 0,
                                       .node = n.name,
                                       .by = who},
                "drill: " + what + " (requested by " + who + ")");
  return {true, what};
}

ControlAnswer JobRun::checkpoint_now(const std::string& who) {
  if (paused()) return {false, "the job is paused; start it first"};
  const std::int64_t request = checkpoints_.request();
  const std::int64_t told = tell_checkpoint_advice();
  if (told == 0) return {false, "no instance is running"};
  const std::string number = std::to_string(request);
  state_.record(journal::CheckpointRequested{.by = who, .request = request, .instances = told},
                "checkpoint " + number + " requested by " + who + " from " + std::to_string(told) +
                    " running instances");
  return {true, "checkpoint " + number + " requested from " + std::to_string(told) +
                    " running instances: their ranks' should_checkpoint() answers True at "
                    "their next step"};
}

void JobRun::measured_saves(double cost_seconds, std::int64_t saves) {
  std::optional<journal::CheckpointInterval> refined = checkpoints_.measured(cost_seconds, saves);
  if (!refined) return;
  char cost[32];
  std::snprintf(cost, sizeof cost, "%.1f s", refined->cost_seconds);
  const std::string line = "checkpoint interval " + human_duration(refined->seconds * 1000) +
                           " (was " + human_duration(refined->previous_seconds * 1000) +
                           "): a save stalls " + cost + " (mean of " +
                           std::to_string(refined->saves) + ")";
  state_.record(std::move(*refined), line);
  tell_checkpoint_advice();
}

net::CheckpointAdvice JobRun::checkpoint_advice() const {
  net::CheckpointAdvice advice = checkpoints_.advice();
  advice.report = swap_.phase() == JobSwap::Phase::Waiting;
  return advice;
}

std::int64_t JobRun::tell_checkpoint_advice() {
  std::int64_t told = 0;
  for (const Instance& inst : state_.instances) {
    if (inst.run == Run::Running && state_.send_to_node(inst.node, checkpoint_advice())) ++told;
  }
  return told;
}

}  // namespace pai::launcher::coordinator
