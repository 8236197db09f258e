#include "launcher/coordinator/job_pause.h"

#include <csignal>

namespace pai::launcher::coordinator {

namespace {

std::string instances_text(std::size_t n) {
  return std::to_string(n) + " instance" + (n == 1 ? "" : "s");
}

}  // namespace

ControlAnswer JobPause::pause(const std::string& who) {
  if (paused_) return {false, "the job is already paused"};
  paused_ = true;
  std::vector<int> stopping;
  for (std::size_t i = 0; i < state_.instances.size(); ++i) {
    Instance& inst = state_.instances[i];
    if (inst.run != Run::Running) continue;
    if (state_.send_to_node(inst.node,
                            net::Stop{static_cast<int>(i), SIGTERM, false, "paused by " + who})) {
      runs_.set_run(static_cast<int>(i), Run::Stopping);
    }
    inst.paused = true;
    stopping.push_back(static_cast<int>(i));
  }
  const std::string text = "paused by " + who + ": stopping " + instances_text(stopping.size());
  state_.record(journal::Paused{.by = who, .instances = static_cast<std::int64_t>(stopping.size())},
                "job " + text);
  return {true, text};
}

ControlAnswer JobPause::resume(const std::string& who, std::vector<int>& starting) {
  if (!paused_) return {false, "the job is not paused"};
  paused_ = false;
  for (std::size_t i = 0; i < state_.instances.size(); ++i) {
    if (state_.instances[i].paused) starting.push_back(static_cast<int>(i));
  }
  const std::string text = "resumed by " + who + ": starting " + instances_text(starting.size());
  state_.record(
      journal::Resumed{.by = who, .instances = static_cast<std::int64_t>(starting.size())},
      "job " + text);
  for (int i : starting) {
    Instance& inst = state_.instances[static_cast<std::size_t>(i)];
    inst.paused = false;
    ++inst.resumed;
  }
  return {true, text};
}

}  // namespace pai::launcher::coordinator
