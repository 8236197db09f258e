// The coordinator's state kept in etcd while it leads (docs/coordinator-ha.md, "The
// takeover"): the latest value written from a thread of its own, so the coordinator's loop
// never waits on etcd, and only while the writer still leads (a conditional put).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "launcher/ha/etcd_client.h"

namespace pai::launcher::ha {

class StatePublisher {
 public:
  /// Writes under `key` as `leader`, through `etcd` (which must outlive it). `key` must not
  /// be under the election's name: every key there stands in the election.
  StatePublisher(EtcdClient& etcd, Leader leader, std::string key);
  /// Stops after the value in flight; values not yet written are dropped (flush() first).
  ~StatePublisher();
  StatePublisher(const StatePublisher&) = delete;
  StatePublisher& operator=(const StatePublisher&) = delete;

  /// Queues `value`, replacing one not yet written; never blocks on etcd.
  void publish(std::string value);
  /// Waits up to `timeout` until the latest value is written (or refused); whether it was.
  bool flush(std::chrono::milliseconds timeout);
  /// False once etcd refused a put: the writer no longer leads, and writes nothing more.
  bool leading() const;
  /// The last error of a put that did not reach etcd ("" after one that did); it is tried
  /// again a tenth of a second later, with the latest value.
  std::string last_error() const;

 private:
  void loop();

  EtcdClient& etcd_;
  const Leader leader_;
  const std::string key_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::string> pending_;  // guarded
  bool writing_ = false;                // guarded: a value is in flight
  bool leading_ = true;                 // guarded
  bool stopping_ = false;               // guarded
  std::string last_error_;              // guarded
  std::thread thread_;
};

}  // namespace pai::launcher::ha
