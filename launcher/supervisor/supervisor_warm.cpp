// Warm starts (spec faultTolerance.warmStart, os/warm_interpreter.h): the ranks of a warm
// role are forked from an interpreter per local rank that has imported the preload, kept
// through every restart of the instance.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "launcher/os/fd.h"
#include "launcher/policy/failure_classifier.h"
#include "launcher/supervisor/supervisor_impl.h"

namespace pai::launcher {

namespace {

/// How long a start waits for a warm interpreter's answer before starting cold: a fork and a
/// few stats take milliseconds.
constexpr std::chrono::seconds kWarmAnswer{5};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "nothing" : out;
}

}  // namespace

bool Supervisor::Impl::is_warm_role(const Instance& inst) const {
  const auto& roles = plan.fault_tolerance.warm_start.roles;
  return std::find(roles.begin(), roles.end(), inst.role->name) != roles.end();
}

std::optional<int> Supervisor::Impl::start_warm(Instance& inst, const Rank& rank,
                                                const SpawnRequest& request) {
  const std::size_t slot = static_cast<std::size_t>(rank.local_rank);
  std::string why = "its warm interpreter is not started yet (the first start is cold)";
  if (slot < inst.warm.size() && inst.warm[slot] != nullptr) {
    if (auto pid = inst.warm[slot]->start(request, kWarmAnswer, &why)) return pid;
  }
  say(inst.name + " rank " + std::to_string(rank.global_rank) + " starts cold: " + why);
  events.record(
      journal::WarmStartCold{.instance = inst.name, .rank = rank.global_rank, .reason = why});
  return std::nullopt;
}

std::vector<std::unique_ptr<WarmInterpreter>>& Supervisor::Impl::warm_slots(int i) {
  return i < 0 ? standby_warm : instances[i].warm;
}

void Supervisor::Impl::warm_up(int i, const std::vector<SpawnRequest>& requests) {
  auto& slots = warm_slots(i);
  const std::string owner = i < 0 ? "standby" : instances[i].name;
  const std::string log_dir = i < 0 ? standby_log_dir : instances[i].log_dir;
  if (slots.size() < requests.size()) slots.resize(requests.size());
  int log = -1;
  for (std::size_t r = 0; r < requests.size(); ++r) {
    auto& warm = slots[r];
    // A preload that failed fails again: its slot stays cold, said once.
    if (warm != nullptr &&
        (warm->state() != WarmInterpreter::State::Failed || warm->preload_failed())) {
      continue;
    }
    if (warm != nullptr) loop.unwatch(warm->channel());
    warm.reset();
    if (log < 0) {
      const std::string path = log_dir + "/warm-interpreters.log";
      log = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (log < 0) {
        say("warning: " + owner + ": cannot open " + path +
            " for its warm interpreters: " + std::strerror(errno) + "; its ranks start cold");
        return;
      }
    }
    try {
      warm = std::make_unique<WarmInterpreter>(requests[r].argv[0],
                                               plan.fault_tolerance.warm_start.preload,
                                               requests[r].env, requests[r].working_dir, log);
    } catch (const std::runtime_error& e) {
      say("warning: " + owner + " local rank " + std::to_string(r) +
          ": cannot start its warm interpreter: " + e.what() + "; its ranks start cold");
      continue;
    }
    loop.watch(warm->channel(), [this, i, r] { on_warm_channel(i, static_cast<int>(r)); });
  }
  close_fd(log);
}

void Supervisor::Impl::on_warm_channel(int i, int r) {
  WarmInterpreter& warm = *warm_slots(i)[r];
  const int channel = warm.channel();
  const WarmInterpreter::State state = warm.poll();
  if (state == WarmInterpreter::State::Importing) return;
  // Ready or failed, it has nothing more to say until a start asks.
  loop.unwatch(channel);
  const std::string who =
      (i < 0 ? "standby" : instances[i].name) + " local rank " + std::to_string(r);
  if (state == WarmInterpreter::State::Ready) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s", warm.import_time().count());
    say(who + ": warm interpreter ready (imported " +
        joined(plan.fault_tolerance.warm_start.preload) + " in " + seconds + ")");
  } else {
    say("warning: " + who + ": warm interpreter failed: " + warm.failure() +
        "; its ranks start cold (" + (i < 0 ? standby_log_dir : instances[i].log_dir) +
        "/warm-interpreters.log)");
  }
}

void Supervisor::Impl::prewarm(const std::string& folder) {
  if (!standby_role.empty()) return;
  const Placement* first = nullptr;
  for (const std::string& name : plan.fault_tolerance.warm_start.roles) {
    for (const Placement& p : plan.placements) {
      if (p.role == name) {
        first = &p;
        break;
      }
    }
    if (first != nullptr) break;
  }
  if (first == nullptr) return;
  const Role& role = *find_role(plan, first->role);
  standby_role = role.name;
  standby_log_dir = options.log_dir + "/" + folder;
  // The start-up variables (os/warm_interpreter.h) are the launcher's and the role's, as at
  // the instance's own start; the per-instance files are its own once it starts.
  const ProcessContext ctx;
  std::vector<SpawnRequest> requests;
  for (int r = 0; r < role.nproc_per_node; ++r) {
    SpawnRequest request;
    request.argv = role.launch_argv;
    request.env = launcher_environment();
    for (auto& kv : process_env(plan, *first, r, ctx)) request.env.push_back(std::move(kv));
    request.working_dir = role.working_dir;
    requests.push_back(std::move(request));
  }
  say("standby: starting " + std::to_string(requests.size()) + " warm interpreter(s) for role " +
      role.name + " (importing " + joined(plan.fault_tolerance.warm_start.preload) + ")");
  warm_up(-1, requests);
}

void Supervisor::Impl::adopt_standby_warm(int i) {
  if (standby_warm.empty()) return;
  Instance& inst = instances[i];
  if (inst.role->name != standby_role) {
    say("standby: " + inst.name + " is not of role " + standby_role +
        ": its warm interpreters are ended");
    for (auto& warm : standby_warm) {
      if (warm != nullptr && warm->state() == WarmInterpreter::State::Importing) {
        loop.unwatch(warm->channel());
      }
    }
    standby_warm.clear();
    return;
  }
  inst.warm = std::move(standby_warm);
  standby_warm.clear();
  for (std::size_t r = 0; r < inst.warm.size(); ++r) {
    auto& warm = inst.warm[r];
    // Still importing: its channel now tells the instance.
    if (warm == nullptr || warm->state() != WarmInterpreter::State::Importing) continue;
    loop.unwatch(warm->channel());
    loop.watch(warm->channel(), [this, i, r] { on_warm_channel(i, static_cast<int>(r)); });
  }
}

bool Supervisor::Impl::warm_exited(int pid, int status) {
  for (int i = -1; i < static_cast<int>(instances.size()); ++i) {
    auto& slots = warm_slots(i);
    for (std::size_t r = 0; r < slots.size(); ++r) {
      if (slots[r] == nullptr || slots[r]->pid() != pid) continue;
      const int channel = slots[r]->channel();
      if (channel >= 0) loop.unwatch(channel);
      const WarmInterpreter::State before = slots[r]->state();
      slots[r]->exited(describe(ExitStatus::from_wait_status(status)));
      if (before != WarmInterpreter::State::Failed && (i < 0 || !instances[i].stopping)) {
        say("warning: " + (i < 0 ? std::string("standby") : instances[i].name) + " local rank " +
            std::to_string(r) + ": " + slots[r]->failure() + "; its next start is cold");
      }
      return true;
    }
  }
  return false;
}

void Supervisor::Impl::end_warm_interpreters() {
  for (int i = -1; i < static_cast<int>(instances.size()); ++i) {
    auto& slots = warm_slots(i);
    for (auto& warm : slots) {
      if (warm != nullptr && warm->channel() >= 0) loop.unwatch(warm->channel());
    }
    slots.clear();
  }
}

}  // namespace pai::launcher
