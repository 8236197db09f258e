// A launcher's part in `coordinator.ha` (docs/coordinator-ha.md): its lease and candidacy in
// the job's etcd election, who leads and where it serves, the lead watched while this launcher
// holds it, and the leader's state kept in etcd for the one that takes over.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "launcher/coordinator/takeover.h"
#include "launcher/ha/coordinator_election.h"
#include "launcher/ha/state_publisher.h"
#include "libpai/plan.h"

namespace pai::launcher {

/// Where a leader serves the coordinator, as its election value says ("NODE ADDRESS PORT").
struct HaLeader {
  std::string node;
  std::string address;
  int port = 0;
  std::int64_t revision = 0;  ///< its key's create revision: a later leader's is higher
  std::string where() const { return address + ":" + std::to_string(port); }
};

/// The election value of a leader serving on `node`'s `address` and `port`.
std::string leader_value(const std::string& node, const std::string& address, int port);
/// The leader an election value names; nullopt for one that is not "NODE ADDRESS PORT" with a
/// port from 1 to 65535 (another program's key, or garbage).
std::optional<HaLeader> parse_leader(const ha::Leader& leader);

/// The key of the leader's state: beside the election, never under it (every key there stands
/// as a candidate).
std::string state_key(const std::string& job, const std::string& seal);

class CoordinatorHa {
 public:
  using Clock = std::chrono::steady_clock;

  /// Takes this launcher's lease for `plan`'s election as `node`, which would serve on
  /// `address` and the plan's coordinator port. Throws std::runtime_error naming etcd's
  /// members when none answers.
  CoordinatorHa(const Plan& plan, const std::string& node, const std::string& address);
  /// Stops watching and standing by; ends the lease (a lead passes on at once).
  ~CoordinatorHa();
  CoordinatorHa(const CoordinatorHa&) = delete;
  CoordinatorHa& operator=(const CoordinatorHa&) = delete;

  /// Campaigns until this launcher leads: the plan's coordinator host at the start. Nullopt at
  /// `deadline` or when a stop signal is pending.
  std::optional<HaLeader> lead(Clock::time_point deadline);
  /// The leader, once one leads whose node is not `lost` ("" = any): asked every 100 ms until
  /// `deadline` (nullopt), or a stop signal (nullopt). Errors of etcd are retried; the last one
  /// is in `error`.
  std::optional<HaLeader> find_leader(const std::string& lost, Clock::time_point deadline,
                                      std::string* error);
  /// The leader now, asked once; nullopt when none leads, its value is garbage, or etcd does
  /// not answer.
  std::optional<HaLeader> current_leader();
  /// Stands in the election behind the leader (once; later calls do nothing).
  void stand_by();
  /// The lead this launcher came to by standing by, if it did.
  std::optional<HaLeader> elected() const;
  /// Once this launcher leads (lead() or elected()): keeps the coordinator's state in etcd
  /// (publish()), and calls `step_down` once, from a thread of its own, when its lease may
  /// have expired.
  void watch(std::function<void(const std::string& why)> step_down);
  /// While this launcher leads: gives the lead up for `why` (its coordinator cannot
  /// coordinate): the watcher calls `step_down` with it, then resigns in etcd so that the next
  /// candidate leads at once (or, etcd unreachable, when the lease lapses). Never blocks.
  void resign(const std::string& why);
  /// The coordinator's latest state, to be written to etcd while this launcher leads.
  void publish(const coordinator::TakeoverState& state);
  /// The state the lost leader kept; nullopt when it kept none. A state that does not parse is
  /// said in `problem` and taken as none (the job then starts from the beginning).
  std::optional<coordinator::TakeoverState> read_state(std::string* problem);

 private:
  const Plan& plan_;
  const std::string node_;
  std::unique_ptr<ha::CoordinatorElection> election_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::optional<ha::Leader> led_;  // guarded: the lead this launcher holds
  bool by_standing_ = false;       // guarded: it came by stand_by()
  bool standing_ = false;
  std::unique_ptr<ha::StatePublisher> publisher_;  // guarded
  std::string resign_why_;                         // guarded: resign() was asked, for this
  std::thread watcher_;
};

}  // namespace pai::launcher
