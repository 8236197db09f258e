// Who coordinates a job with `coordinator.ha` (docs/coordinator-ha.md): an etcd election
// named after the job and its plan's seal, whose value is the leader's ADDRESS:PORT. Every
// launcher holds a lease (LeaseKeeper); the plan's coordinator host leads at the start, the
// others stand by behind it and the oldest candidate leads when the leader's lease ends.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "launcher/ha/etcd_client.h"
#include "launcher/ha/lease_keeper.h"

namespace pai::launcher::ha {

struct ElectionOptions {
  EtcdOptions etcd;
  std::string job;   ///< the plan's name
  std::string seal;  ///< the plan's seal: runs of different plans never share an election
  std::chrono::seconds lease{3};
  std::string address;  ///< where this launcher would serve the coordinator: ADDRESS:PORT
};

/// "pai/jobs/<job>/<first 16 characters of the seal>/coordinator".
std::string election_name(const std::string& job, const std::string& seal);

class CoordinatorElection {
 public:
  using Clock = std::chrono::steady_clock;

  /// Connects and takes a lease (throws EtcdError when no member answers).
  explicit CoordinatorElection(ElectionOptions options);
  /// Stops standing by and ends the lease: a lead it held passes on at once.
  ~CoordinatorElection();
  CoordinatorElection(const CoordinatorElection&) = delete;
  CoordinatorElection& operator=(const CoordinatorElection&) = delete;

  const std::string& name() const { return name_; }
  const LeaseKeeper& lease() const { return *keeper_; }
  EtcdClient& etcd() { return *etcd_; }

  /// Campaigns until this launcher leads; nullopt at `deadline`, EtcdCancelled when `cancel`
  /// says so. The plan's coordinator host does this at the start.
  std::optional<Leader> lead(Clock::time_point deadline, const std::function<bool()>& cancel = {});
  /// The leader now (its value is where it serves), or nullopt.
  std::optional<Leader> leader();
  /// Stands by in a thread of its own: when this launcher comes to lead, `on_lead` runs
  /// there once. Campaign errors (etcd unreachable) are retried every half a lease while the
  /// lease lasts; `on_error` hears each. A lost lease ends the standing (it can never lead).
  void stand_by(std::function<void(const Leader&)> on_lead,
                std::function<void(const std::string&)> on_error = {});
  /// Whether a lead this launcher holds may still act: its lease cannot have expired.
  bool may_act() const { return !keeper_->lost(); }

 private:
  ElectionOptions options_;
  std::string name_;
  std::unique_ptr<EtcdClient> etcd_;
  std::unique_ptr<LeaseKeeper> keeper_;
  std::atomic<bool> stopping_{false};
  std::thread standing_;
};

}  // namespace pai::launcher::ha
