// A drill's faults in the ranks of this node (`pai-launch drill`, docs/drill.md): put in,
// journaled, ended. InjectedFault (injected_fault.h) paces them; what a fault sustains besides
// signals is here: collective-hang's hold in the rank's telemetry ring, slow-gpu's burn on its
// GPU (gpu_load.h).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "launcher/supervisor/supervisor_impl.h"
#include "launcher/supervisor/telemetry_ring.h"

namespace pai::launcher {

namespace {

// How long a slow-gpu's burner burns past the fault's seconds should its launcher not end it
// (SIGKILLed, PR_SET_PDEATHSIG aside): the launcher always ends it first.
constexpr int kBurnMarginSeconds = 5;

}  // namespace

std::string Supervisor::inject(int instance, int local_rank, DrillFault fault, int seconds) {
  Impl::Instance& inst = impl_->instances.at(instance);
  if (fault == DrillFault::NodeLoss) {
    // The launcher is the process: its record must be on disk before it goes.
    impl_->events.record(journal::FaultInjected{
        .fault = to_string(fault), .instance = inst.name, .pid = ::getpid()});
    impl_->events.flush();
    impl_->say("drill: node-loss: this launcher kills itself with SIGKILL");
    InjectedFault(fault, ::getpid(), seconds, InjectedFault::Clock::now(),
                  [](int pid, int sig) { ::kill(pid, sig); });
    return "";
  }
  if (local_rank < 0 || local_rank >= static_cast<int>(inst.ranks.size())) {
    return inst.name + " has no local rank " + std::to_string(local_rank);
  }
  Impl::Rank& rank = inst.ranks[static_cast<std::size_t>(local_rank)];
  const std::string who = inst.name + " rank " + std::to_string(rank.global_rank);
  if (!impl_->running(rank) || inst.stopping) return who + " is not running";
  if (fault == DrillFault::CollectiveHang) {
    if (std::string why = impl_->why_no_collective_hold(rank); !why.empty()) {
      return who + " " + why;
    }
  }
  if (fault == DrillFault::SlowGpu && impl_->options.gpu_burner.empty()) {
    return "this launcher has no GPU burner for slow-gpu";
  }
  impl_->end_fault(inst, "another fault replaces it");
  InjectedFault::Sustain sustain;
  if (fault == DrillFault::CollectiveHang) {
    sustain = [impl = impl_.get(), path = rank.telemetry_path](InjectedFault::Clock::time_point t) {
      impl->hold_collectives(path, t);
    };
  } else if (fault == DrillFault::SlowGpu) {
    sustain = [impl = impl_.get(), instance, local_rank,
               seconds](InjectedFault::Clock::time_point until) {
      impl->load_gpu(instance, local_rank, seconds, until);
    };
  }
  // A slow-gpu is recorded once its burn runs (gpu_burning()); the others now.
  inst.fault_recorded = fault != DrillFault::SlowGpu;
  if (inst.fault_recorded) {
    impl_->events.record(journal::FaultInjected{.fault = to_string(fault),
                                                .instance = inst.name,
                                                .rank = rank.global_rank,
                                                .seconds = bounded(fault) ? seconds : 0,
                                                .pid = rank.pid});
  }
  try {
    inst.fault = std::make_unique<InjectedFault>(
        fault, rank.pid, seconds, InjectedFault::Clock::now(),
        [](int pid, int sig) { ::kill(pid, sig); }, std::move(sustain));
  } catch (const std::runtime_error& e) {  // the burner could not be started
    return who + ": cannot start the burn on GPU " + std::to_string(local_rank) + ": " + e.what();
  }
  inst.fault_rank = local_rank;
  if (inst.fault->over()) inst.fault.reset();
  return "";
}

std::string Supervisor::Impl::why_no_collective_hold(const Rank& rank) const {
  if (rank.telemetry_path.empty()) {
    return "has no telemetry ring: collective-hang holds a rank through it";
  }
  // The records still in the ring (the last 1,024): a rank that steps through the SDK without
  // instrument() has none of a collective, and nothing would read the hold.
  try {
    TelemetryReader reader(rank.telemetry_path);
    for (const pai_telemetry_record& record : reader.poll().records) {
      if (record.kind == PAI_TELEMETRY_COLLECTIVE_ENTER) return "";
    }
  } catch (const TelemetryError& e) {
    return std::string("has no readable telemetry ring: ") + e.what();
  }
  return "records no collective in its telemetry ring: collective-hang needs a rank whose "
         "collectives pai.telemetry.instrument() records";
}

void Supervisor::Impl::hold_collectives(const std::string& path, Clock::time_point until) {
  const bool clear = until == Clock::time_point{};
  try {
    set_drill_hold(
        path,
        clear ? 0
              : static_cast<std::uint64_t>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(until.time_since_epoch())
                        .count()));
  } catch (const TelemetryError& e) {
    if (!clear) say(std::string("drill: collective-hang: ") + e.what());
  }
}

void Supervisor::Impl::load_gpu(int i, int local_rank, int seconds, Clock::time_point until) {
  Instance& inst = instances[static_cast<std::size_t>(i)];
  if (until == Clock::time_point{}) {
    inst.gpu_load.reset();
    return;
  }
  // The launcher's environment with the rank's view of the GPUs (later entries win).
  EnvList env = launcher_environment();
  const EnvList& gpus = inst.ranks[static_cast<std::size_t>(local_rank)].gpu_env;
  env.insert(env.end(), gpus.begin(), gpus.end());
  inst.gpu_load =
      std::make_unique<GpuLoad>(loop, options.gpu_burner, local_rank, seconds + kBurnMarginSeconds,
                                env, [this, i] { gpu_burning(i); });
}

void Supervisor::Impl::gpu_burning(int i) {
  Instance& inst = instances[static_cast<std::size_t>(i)];
  if (!inst.fault || inst.fault->over() || !inst.gpu_load) return;
  const Rank& rank = inst.ranks[static_cast<std::size_t>(inst.fault_rank)];
  const auto left =
      std::chrono::ceil<std::chrono::seconds>(*inst.fault->next_deadline() - Clock::now());
  const std::string place = "GPU " + std::to_string(inst.gpu_load->gpu());
  inst.fault_recorded = true;
  events.record(journal::FaultInjected{.fault = to_string(inst.fault->fault()),
                                       .instance = inst.name,
                                       .rank = rank.global_rank,
                                       .seconds = left.count(),
                                       .pid = rank.pid,
                                       .place = place});
  say("drill: slow-gpu: " + inst.gpu_load->described() + " of " + inst.name + " rank " +
      std::to_string(rank.global_rank) + " shares its time with a burn for " +
      std::to_string(left.count()) + " s");
}

bool Supervisor::Impl::gpu_load_exited(int pid, int status) {
  for (Instance& inst : instances) {
    if (!inst.gpu_load || inst.gpu_load->pid() != pid) continue;
    inst.gpu_load->exited(status);
    const std::string place = "GPU " + std::to_string(inst.gpu_load->gpu());
    const std::string ending = inst.gpu_load->ending();
    if (!inst.fault || inst.fault->over()) {
      inst.gpu_load.reset();
    } else if (!inst.fault_recorded) {
      say("drill: slow-gpu: " + inst.name + " rank " +
          std::to_string(inst.ranks[static_cast<std::size_t>(inst.fault_rank)].global_rank) +
          ": the burn on " + place + " did not start: " + ending);
      end_fault(inst, "");  // never recorded: nothing is journaled
    } else {
      end_fault(inst, "the burn on " + place + " ended before its seconds: " + ending);
    }
    return true;
  }
  return false;
}

void Supervisor::Impl::end_fault(Instance& inst, const std::string& why, bool gone) {
  if (!inst.fault) return;
  if (!inst.fault->over()) {
    if (gone) {
      inst.fault->forget();
    } else {
      inst.fault->revert();
    }
    record_fault_over(inst, why);
  }
  inst.fault.reset();
}

void Supervisor::Impl::record_fault_over(const Instance& inst, const std::string& why) {
  if (!inst.fault_recorded) return;
  events.record(journal::FaultReverted{
      .fault = to_string(inst.fault->fault()),
      .instance = inst.name,
      .rank = inst.ranks[static_cast<std::size_t>(inst.fault_rank)].global_rank,
      .why = why});
}

}  // namespace pai::launcher
