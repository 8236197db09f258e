#include "launcher/policy/restart_policy.h"

#include <algorithm>
#include <csignal>
#include <utility>

#include "launcher/policy/restart_backoff.h"
#include "libpai/rank_name.h"

namespace pai::launcher {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

std::string instance_name(const GovernedInstance& g) {
  return g.role + "-" + std::to_string(g.index);
}

}  // namespace

RestartPolicyMachine::RestartPolicyMachine(FaultTolerance fault_tolerance,
                                           std::vector<GovernedInstance> instances,
                                           int total_instances)
    : ft_(std::move(fault_tolerance)),
      instances_(std::move(instances)),
      states_(instances_.size()),
      total_instances_(total_instances) {
  for (std::size_t j = 0; j < instances_.size(); ++j) {
    const std::string& role = instances_[j].role;
    auto it = std::find_if(roles_.begin(), roles_.end(),
                           [&](const RoleTally& t) { return instances_[t.first].role == role; });
    if (it == roles_.end()) it = roles_.insert(roles_.end(), RoleTally{j});
    ++it->members;
    role_of_.push_back(static_cast<int>(it - roles_.begin()));
  }
  retally();
}

void RestartPolicyMachine::retally() {
  active_ = 0;
  for (RoleTally& t : roles_) t.succeeded = t.tolerated = 0;
  for (std::size_t j = 0; j < states_.size(); ++j) tally(static_cast<int>(j), 1);
}

void RestartPolicyMachine::tally(int instance, int sign) {
  const State& s = states_[static_cast<std::size_t>(instance)];
  RoleTally& t = roles_[static_cast<std::size_t>(role_of_[static_cast<std::size_t>(instance)])];
  if (s.phase == Phase::Running || s.phase == Phase::Stopping || s.phase == Phase::BackingOff) {
    active_ += sign;
  }
  if (s.phase == Phase::Succeeded) t.succeeded += sign;
  if (s.phase == Phase::Failed && s.tolerated) t.tolerated += sign;
}

void RestartPolicyMachine::set_phase(int instance, Phase phase) {
  tally(instance, -1);
  states_[static_cast<std::size_t>(instance)].phase = phase;
  tally(instance, 1);
}

std::vector<PolicyAction> RestartPolicyMachine::start() {
  std::vector<PolicyAction> out;
  for (int i = 0; i < static_cast<int>(instances_.size()); ++i) {
    states_[i] = State{};
    out.push_back(StartInstance{i, 0});
  }
  retally();
  if (instances_.empty()) {
    finished_ = true;
    out.push_back(CompleteJob{});
  }
  return out;
}

PolicySnapshot RestartPolicyMachine::snapshot() const {
  PolicySnapshot out;
  out.same_error = same_error_;
  for (const State& s : states_) {
    out.restart_counts.push_back(s.restart_count);
    out.outcomes.push_back(s.phase == Phase::Succeeded                ? PolicySnapshot::Outcome::Succeeded
                           : s.phase == Phase::Failed && s.tolerated ? PolicySnapshot::Outcome::Tolerated
                                                                      : PolicySnapshot::Outcome::Running);
  }
  return out;
}

std::vector<PolicyAction> RestartPolicyMachine::resume(const PolicySnapshot& past,
                                                       const std::string& reason) {
  std::vector<PolicyAction> out;
  same_error_ = past.same_error;
  std::string refusal;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    State& s = states_[i];
    s = State{};
    const auto outcome =
        i < past.outcomes.size() ? past.outcomes[i] : PolicySnapshot::Outcome::Running;
    s.restart_count = i < past.restart_counts.size() ? past.restart_counts[i] : 0;
    if (outcome == PolicySnapshot::Outcome::Succeeded) {
      s.phase = Phase::Succeeded;
    } else if (outcome == PolicySnapshot::Outcome::Tolerated) {
      s.phase = Phase::Failed;
      s.tolerated = true;
    } else if (refusal.empty() && !ft_.restart_enabled) {
      refusal = reason + ", but restarts are disabled";
    } else if (refusal.empty() && s.restart_count >= ft_.max_restarts) {
      refusal = instance_name(instances_[i]) + ": " + reason + ", but maxRestarts (" +
                std::to_string(ft_.max_restarts) + ") is exhausted";
    }
  }
  if (!refusal.empty()) {
    for (State& s : states_) {
      if (s.phase == Phase::Running) s.phase = Phase::Stopped;
    }
    retally();
    failing_ = true;
    failure_ = FailJob{};
    failure_.reason = refusal;
    return settle();
  }
  for (int i = 0; i < static_cast<int>(states_.size()); ++i) {
    State& s = states_[static_cast<std::size_t>(i)];
    if (s.phase != Phase::Running) continue;
    ++s.restart_count;
    out.push_back(StartInstance{i, s.restart_count});
  }
  retally();
  auto rest = settle();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<PolicyAction> RestartPolicyMachine::on(const PolicyEvent& event) {
  if (finished_) return {};
  return std::visit(Overloaded{
                        [&](const ProcessExited& e) -> std::vector<PolicyAction> {
                          State& s = states_.at(e.instance);
                          ++s.exited;
                          if (s.phase != Phase::Running) return {};
                          if (e.status.success()) {
                            ++s.succeeded;
                            return {};
                          }
                          return on_failure(e.instance, e.local_rank, e.status, e.classification,
                                            false);
                        },
                        [&](const HangDetected& e) -> std::vector<PolicyAction> {
                          if (states_.at(e.instance).phase != Phase::Running) return {};
                          return on_failure(e.instance, -1, ExitStatus{}, e.classification, true);
                        },
                        [&](const InstanceStopped& e) { return on_stopped(e.instance); },
                        [&](const BackoffElapsed& e) -> std::vector<PolicyAction> {
                          State& s = states_.at(e.instance);
                          if (s.phase != Phase::BackingOff || failing_ || stop_signal_ != 0)
                            return {};
                          set_phase(e.instance, Phase::Running);
                          s.after_stop = AfterStop::Nothing;
                          s.exited = s.succeeded = 0;
                          std::vector<PolicyAction> out;
                          out.emplace_back(StartInstance{e.instance, s.restart_count});
                          return out;
                        },
                        [&](const StopRequested& e) { return on_stop_requested(e.signal); },
                    },
                    event);
}

std::vector<PolicyAction> RestartPolicyMachine::on_failure(int instance, int local_rank,
                                                           const ExitStatus& status,
                                                           const Classification& classification,
                                                           bool hang) {
  std::vector<PolicyAction> out;
  State& s = states_[instance];
  const GovernedInstance& g = instances_[instance];
  const int same = ++same_error_[classification.signature];
  const std::string where =
      to_string(RankName{.rank = local_rank >= 0 ? g.first_rank + local_rank : -1,
                         .instance = instance_name(g),
                         .local_rank = local_rank});

  std::string refusal;
  if (!classification.retryable) {
    refusal = classification.reason;
  } else if (!ft_.restart_enabled) {
    refusal = classification.reason + ", but restarts are disabled";
  } else if (s.restart_count >= ft_.max_restarts) {
    refusal = classification.reason + ", but maxRestarts (" + std::to_string(ft_.max_restarts) +
              ") is exhausted";
  } else if (same >= ft_.max_same_error) {
    refusal = classification.reason + ", but the same error occurred " + std::to_string(same) +
              " times (maxSameError " + std::to_string(ft_.max_same_error) + ")";
  }

  if (refusal.empty()) {
    const std::string reason = where + ": " + classification.reason;
    const bool sync = ft_.mode == FaultToleranceMode::Sync;
    for (int j = 0; j < static_cast<int>(states_.size()); ++j) {
      if (j == instance || (sync && states_[j].phase == Phase::Running)) {
        // A hang asks every instance it stops for stacks: the one idle longest is often only
        // waiting for a rank elsewhere, which is the one whose stack matters.
        stop(out, j, AfterStop::Restart, SIGTERM, hang, reason);
        states_[j].restart_signature = classification.signature;
      }
    }
    return out;
  }

  FailJob failure;
  failure.reason = where + ": " + refusal;
  failure.instance = instance;
  failure.local_rank = local_rank;
  failure.status = status;
  failure.classification = classification;
  if (status.signal == 0 && (status.code == 126 || status.code == 127)) {
    failure.exit_code = status.code;
  }
  last_failure_ = failure;

  int role_failed = 1;
  int failed_total = 1;
  for (int j = 0; j < static_cast<int>(states_.size()); ++j) {
    if (states_[j].phase != Phase::Failed) continue;
    ++failed_total;
    if (instances_[j].role == g.role) ++role_failed;
  }
  const bool role_fails = g.completion.min_failed != -1 && role_failed >= g.completion.min_failed;
  const bool rate_tolerates = ft_.max_tolerated_failure_rate > 0 &&
                              failed_total <= ft_.max_tolerated_failure_rate * total_instances_;
  if (!role_fails || rate_tolerates) {
    s.tolerated = rate_tolerates;
    stop(out, instance, AfterStop::Tolerate, SIGTERM, hang, failure.reason);
    return out;
  }
  fail_job(out, std::move(failure), hang);
  return out;
}

void RestartPolicyMachine::stop(std::vector<PolicyAction>& out, int instance, AfterStop after,
                                int signal, bool dump, const std::string& reason) {
  State& s = states_[instance];
  set_phase(instance, Phase::Stopping);
  s.after_stop = after;
  if (after == AfterStop::Restart) s.restart_reason = reason;
  out.push_back(StopInstance{instance, signal, dump, reason});
}

void RestartPolicyMachine::fail_job(std::vector<PolicyAction>& out, FailJob failure,
                                    bool dump_stacks) {
  failing_ = true;
  failure_ = std::move(failure);
  for (int j = 0; j < static_cast<int>(states_.size()); ++j) {
    if (states_[j].phase == Phase::Running) {
      stop(out, j, AfterStop::Fail, SIGTERM, dump_stacks, "the job failed: " + failure_.reason);
    } else if (states_[j].phase == Phase::Stopping) {
      states_[j].after_stop = AfterStop::Fail;
    } else if (states_[j].phase == Phase::BackingOff) {
      set_phase(j, Phase::Stopped);
    }
  }
  auto rest = settle();
  out.insert(out.end(), rest.begin(), rest.end());
}

std::vector<PolicyAction> RestartPolicyMachine::on_stopped(int instance) {
  std::vector<PolicyAction> out;
  State& s = states_.at(instance);
  if (s.phase == Phase::Running) {
    set_phase(instance, Phase::Succeeded);
  } else if (s.phase == Phase::Stopping) {
    switch (s.after_stop) {
      case AfterStop::Restart:
        if (failing_ || stop_signal_ != 0) {
          set_phase(instance, Phase::Stopped);
        } else {
          set_phase(instance, Phase::BackingOff);
          ++s.restart_count;
          const auto same = same_error_.find(s.restart_signature);
          out.push_back(
              ScheduleRestart{instance,
                              restart_backoff(ft_.backoff_seconds, s.restart_signature,
                                              same == same_error_.end() ? 1 : same->second),
                              s.restart_count, s.restart_reason, s.restart_signature});
        }
        break;
      case AfterStop::Tolerate:
        set_phase(instance, Phase::Failed);
        break;
      case AfterStop::Nothing:
      case AfterStop::Fail:
      case AfterStop::Stop:
      case AfterStop::Complete:
        set_phase(instance, Phase::Stopped);
        break;
    }
  } else {
    return out;
  }
  auto rest = settle();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<PolicyAction> RestartPolicyMachine::on_stop_requested(int signal) {
  std::vector<PolicyAction> out;
  const std::string reason = "pai-launch received " + signal_name(signal);
  if (stop_signal_ != 0) {
    for (int j = 0; j < static_cast<int>(states_.size()); ++j) {
      if (states_[j].phase == Phase::Stopping) {
        out.push_back(StopInstance{j, SIGKILL, false, reason + " again"});
      }
    }
    return out;
  }
  stop_signal_ = signal;
  for (int j = 0; j < static_cast<int>(states_.size()); ++j) {
    if (states_[j].phase == Phase::Running) {
      stop(out, j, AfterStop::Stop, signal, false, reason);
    } else if (states_[j].phase == Phase::BackingOff) {
      set_phase(j, Phase::Stopped);
    }
  }
  auto rest = settle();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// "role: a of b required instances succeeded" for the first role (in governed order) short
// of its minSucceeded, or "" when every role is complete.
std::string RestartPolicyMachine::incomplete_role() const {
  // OpenPAI's rule: a role that states minSucceeded completes the job once it got there (the
  // MPI launcher role's mpirun, the workers of a parameter-server job), whatever the other
  // roles do.
  for (const RoleTally& t : roles_) {
    const int min_succeeded = instances_[t.first].completion.min_succeeded;
    if (min_succeeded >= 1 && t.succeeded >= std::min(min_succeeded, t.members)) return "";
  }
  for (const RoleTally& t : roles_) {
    const int min_succeeded = instances_[t.first].completion.min_succeeded;
    const int need =
        min_succeeded == -1 ? t.members - t.tolerated : std::min(min_succeeded, t.members);
    if (t.succeeded < need) {
      return instances_[t.first].role + ": " + std::to_string(t.succeeded) + " of " +
             std::to_string(need) + " required instances succeeded";
    }
  }
  return "";
}

std::vector<PolicyAction> RestartPolicyMachine::settle() {
  std::vector<PolicyAction> out;
  if (finished_) return out;
  if (active_ > 0) {
    if (!failing_ && stop_signal_ == 0 && incomplete_role().empty()) {
      for (int j = 0; j < static_cast<int>(states_.size()); ++j) {
        if (states_[j].phase == Phase::Running) {
          stop(out, j, AfterStop::Complete, SIGTERM, false, "the job completed");
        } else if (states_[j].phase == Phase::BackingOff) {
          set_phase(j, Phase::Stopped);
        }
      }
      if (active_ > 0) return out;
    } else {
      return out;
    }
  }

  finished_ = true;
  if (stop_signal_ != 0) {
    out.push_back(CancelJob{"pai-launch received " + signal_name(stop_signal_), 128 + stop_signal_});
  } else if (failing_) {
    out.push_back(failure_);
  } else if (std::string missing = incomplete_role(); !missing.empty()) {
    FailJob f = last_failure_;
    f.reason = "role " + missing + (f.reason.empty() ? "" : "; last failure: " + f.reason);
    f.exit_code = 1;
    out.push_back(f);
  } else {
    out.push_back(CompleteJob{});
  }
  return out;
}

}  // namespace pai::launcher
