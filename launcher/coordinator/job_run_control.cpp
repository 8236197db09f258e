#include <csignal>

#include "launcher/coordinator/job_run.h"

// JobRun's side of job control (`pai-launch stop|start|kill`): pausing and resuming through
// JobPause, killing an instance as a failure.

namespace pai::launcher::coordinator {

ControlAnswer JobRun::pause(const std::string& who, Clock::time_point now) {
  now_ = now;
  return pause_.pause(who);
}

ControlAnswer JobRun::resume(const std::string& who, Clock::time_point now) {
  now_ = now;
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

}  // namespace pai::launcher::coordinator
