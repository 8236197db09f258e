#include <csignal>

#include "launcher/coordinator/job_run.h"

// JobRun's side of job control (`pai-launch stop|start|kill`): pausing stops every running
// instance outside the policy's view, resuming starts them again with the same attempts.

namespace pai::launcher::coordinator {

ControlAnswer JobRun::pause(const std::string& who, Clock::time_point now) {
  now_ = now;
  if (paused_) return {false, "the job is already paused"};
  paused_ = true;
  std::vector<int> stopping;
  for (std::size_t i = 0; i < state_.instances.size(); ++i) {
    Instance& inst = state_.instances[i];
    if (inst.run != Run::Running) continue;
    if (state_.send_to_node(inst.node,
                            net::Stop{static_cast<int>(i), SIGTERM, false, "paused by " + who})) {
      set_run(static_cast<int>(i), Run::Stopping);
    }
    inst.paused = true;
    stopping.push_back(static_cast<int>(i));
  }
  const std::string text = "paused by " + who + ": stopping " + std::to_string(stopping.size()) +
                           " instance" + (stopping.size() == 1 ? "" : "s");
  state_.record("paused", Json{{"by", who}, {"instances", stopping.size()}}, "job " + text);
  return {true, text};
}

ControlAnswer JobRun::resume(const std::string& who, Clock::time_point now) {
  now_ = now;
  if (!paused_) return {false, "the job is not paused"};
  paused_ = false;
  std::vector<int> starting;
  for (std::size_t i = 0; i < state_.instances.size(); ++i) {
    if (state_.instances[i].paused) starting.push_back(static_cast<int>(i));
  }
  const std::string text = "resumed by " + who + ": starting " + std::to_string(starting.size()) +
                           " instance" + (starting.size() == 1 ? "" : "s");
  state_.record("resumed", Json{{"by", who}, {"instances", starting.size()}}, "job " + text);
  for (int i : starting) {
    state_.instances[static_cast<std::size_t>(i)].paused = false;
    ++state_.instances[static_cast<std::size_t>(i)].resumed;
    start_instance(i, policy_.restart_count(i), false);
    if (state_.phase != Phase::Running) break;
  }
  start_ready();
  return {true, text};
}

ControlAnswer JobRun::kill(const std::string& instance, const std::string& who) {
  const int i = state_.find_instance(instance);
  if (i < 0) return {false, "no instance named \"" + instance + "\" in the job"};
  if (paused_) return {false, "the job is paused; start it first"};
  Instance& inst = state_.instances[static_cast<std::size_t>(i)];
  const Node& n = state_.nodes[static_cast<std::size_t>(inst.node)];
  if (inst.run != Run::Running) return {false, instance + " is not running"};
  if (!state_.send_to_node(inst.node, net::Kill{i})) {
    return {false, instance + ": node " + n.name + " is not connected"};
  }
  state_.record("kill", Json{{"instance", instance}, {"node", n.name}, {"by", who}},
                "killing " + instance + " on " + n.name + " (requested by " + who + ")");
  return {true, "killing " + instance + " on " + n.name};
}

}  // namespace pai::launcher::coordinator
