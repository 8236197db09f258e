// One etcd lease kept alive from a thread of its own, and how long it surely lasts: what a
// coordinator elected through it must stop acting by, when the renewals fail
// (docs/coordinator-ha.md, "How the lead is held").
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "launcher/ha/etcd_client.h"

namespace pai::launcher::ha {

class LeaseKeeper {
 public:
  using Clock = std::chrono::steady_clock;

  /// Grants a lease of `ttl` (throws EtcdError; etcd may grant more) and renews it every third
  /// of the TTL granted until destroyed, and every 200 ms while renewals fail.
  LeaseKeeper(EtcdClient& etcd, std::chrono::seconds ttl);
  /// Stops renewing and revokes the lease (its keys go with it: a leader resigns), unless
  /// it is already lost; a revoke that fails only lets it expire.
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  std::int64_t id() const { return lease_.id; }
  std::chrono::seconds ttl() const { return ttl_; }
  /// Until when etcd surely still holds the lease: the send time of the last renewal it
  /// acknowledged plus the TTL, less a tenth of the TTL (at least 100 ms) for the clocks'
  /// rates. etcd cannot expire it before then.
  Clock::time_point valid_until() const;
  /// Whether it may have expired: etcd said so, or valid_until() passed.
  bool lost() const;
  /// The last renewal's error ("" when it succeeded), for a coordinator that steps down.
  std::string last_error() const;

 private:
  void renew_loop();

  EtcdClient& etcd_;
  const Clock::time_point asked_;  // before the grant: etcd holds the lease from no sooner
  const Lease lease_;
  const std::chrono::seconds ttl_;  // as granted
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Clock::time_point valid_until_;  // guarded
  std::string last_error_;         // guarded
  bool expired_ = false;           // guarded: etcd answered TTL 0
  bool stopping_ = false;          // guarded
  std::thread thread_;
};

}  // namespace pai::launcher::ha
