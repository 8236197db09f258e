#include <string>

#include "launcher/coordinator/job_run.h"
#include "libpai/duration.h"

// JobRun's side of swapping a degrading node for a spare (faultTolerance.swap, docs/swap.md):
// JobSwap says which node and where the swap stands; the hub asks the ranks for a checkpoint,
// stops the job through JobPause once one is saved, and starts it again with the spare in the
// node's place. No failure is counted: the restart budget is not used, and each instance's
// new start is an attempt of its own (as after `pai-launch start`).

namespace pai::launcher::coordinator {

bool JobRun::steady() const {
  for (const Instance& inst : state_.instances) {
    if (inst.run != Run::Running || inst.start_pending || inst.backoff_until) return false;
  }
  return true;
}

void JobRun::check_swap() {
  if (!swap_.enabled() || state_.phase != Phase::Running) return;
  swap_.checked(now_);
  if (swap_.phase() == JobSwap::Phase::Waiting) {
    std::string why;
    if (paused()) {
      why = "the job was paused";
    } else if (!steady()) {
      why = "the job is restarting";
    } else if (state_.ready_spare() < 0) {
      why = "no spare is ready any more";
    } else if (now_ >= swap_.deadline()) {
      why = "no checkpoint was saved within " +
            format_duration(state_.plan.fault_tolerance.swap.checkpoint_timeout_seconds) +
            " (swap.checkpointTimeout): do the ranks call should_checkpoint() and save with "
            "pai.checkpoint?";
    }
    if (!why.empty()) abandon_swap(why);
    return;
  }
  if (swap_.phase() != JobSwap::Phase::Idle || paused() || !steady()) return;
  const auto cause = swap_.due(now_, [&](const SwapCause& c) {
    return c.verdict ? diagnosis_.holds(*c.verdict) : c.nic && nic_.holds(*c.nic);
  });
  if (!cause) return;
  if (cause->node_name == state_.settings.own_node) {
    // Its launcher's run would end, and the coordinator with it (the job's end).
    swap_.skip(cause->node);
    state_.record(
        journal::SwapAbandoned{.node = cause->node_name, .reason = "the coordinator runs on it"},
        "swap of node " + cause->node_name +
            " given up: the coordinator runs on it (its launcher cannot leave the job)");
    return;
  }
  // A due swap waits for a ready spare (one may still join).
  if (state_.ready_spare() >= 0) begin_swap(*cause);
}

void JobRun::begin_swap(const SwapCause& cause) {
  const int instance = state_.nodes[static_cast<std::size_t>(cause.node)].instance;
  const std::int64_t request = checkpoints_.request();
  swap_.begin(cause, request, now_);
  const std::string& cls = cause.cls;
  const std::string name = instance >= 0 ? state_.instance_name(instance) : std::string();
  state_.record(journal::SwapStarted{.node = cause.node_name,
                                     .instance = name,
                                     .cls = cls,
                                     .evidence = cause.evidence,
                                     .request = request},
                "swapping node " + cause.node_name + " (" + name + ") for a spare: its " + cls +
                    " verdict held " +
                    format_duration(state_.plan.fault_tolerance.swap.after_seconds) +
                    "; asking the ranks for checkpoint " + std::to_string(request));
  if (instance < 0) {
    abandon_swap("its instance no longer runs there");
  } else if (tell_checkpoint_advice() == 0) {
    abandon_swap("no instance could be told");
  }
}

void JobRun::abandon_swap(const std::string& reason) {
  const std::string node = swap_.cause().node_name;
  swap_.end();
  state_.record(journal::SwapAbandoned{.node = node, .reason = reason},
                "swap of node " + node + " given up: " + reason);
}

void JobRun::checkpointed(int node, const net::Checkpointed& message, Clock::time_point now) {
  now_ = now;
  check_own(node, message.instance, message.kType, "instance");
  // A save of an earlier request, or one that ends after the swap was given up, is late.
  if (swap_.phase() != JobSwap::Phase::Waiting || message.request < swap_.request()) return;
  const SwapCause& cause = swap_.cause();
  Node& n = state_.nodes[static_cast<std::size_t>(cause.node)];
  swap_.saved(message.step, now);
  state_.record(
      journal::SwapSaved{
          .node = n.name, .instance = state_.instance_name(message.instance), .step = message.step},
      "swap of node " + n.name + ": checkpoint of step " + std::to_string(message.step) +
          " saved by " + state_.instance_name(message.instance) + "; stopping the job");
  // Excluded, its instance goes to a spare at the start after the stop (start_instance).
  n.excluded = "swapped: " + cause.cls;
  n.last_event = "swapped out: " + cause.cls;
  pause_.pause("the swap of node " + n.name);
  finish_swap();
}

void JobRun::finish_swap() {
  if (runs_.stopping() > 0 || state_.phase != Phase::Running) return;
  const int node = swap_.cause().node;
  Node& n = state_.nodes[static_cast<std::size_t>(node)];
  const std::int64_t step = swap_.step();
  const auto stop_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now_ - swap_.saved_at()).count();
  swap_.end();
  if (state_.ready_spare() < 0) {
    // The spare went while the job stopped: the job starts again as it was.
    n.excluded.clear();
    state_.record(
        journal::SwapAbandoned{.node = n.name, .reason = "the spare was lost"},
        "swap of node " + n.name + " given up: the spare was lost; the job starts again on it");
    restart_paused("the swap of node " + n.name);
    return;
  }
  const int instance = n.instance;
  restart_paused("the swap of node " + n.name);
  if (state_.phase != Phase::Running || instance < 0) return;
  const std::string& spare = state_
                                 .nodes[static_cast<std::size_t>(
                                     state_.instances[static_cast<std::size_t>(instance)].node)]
                                 .name;
  state_.record(journal::SwapDone{.node = n.name, .spare = spare, .step = step, .stop_ms = stop_ms},
                "swapped node " + n.name + " for spare " + spare +
                    ": the job starts again from step " + std::to_string(step) +
                    "'s checkpoint, no failure counted");
}

}  // namespace pai::launcher::coordinator
