// A client of etcd's v3 API through its JSON gateway (HTTP POST to /v3/..., keys and values
// base64; etcd 3.4 and later serve it on the client URLs): the leases, the election and the
// compare-and-put that coordinator high availability needs (docs/coordinator-ha.md). Not a
// general etcd client: each call is one request with a deadline, tried on the cluster's
// members in turn until one answers.
//
// Only http:// endpoints: the election carries no secret (a launcher still proves the job
// token to whichever coordinator it finds), but the etcd cluster must be one the job trusts.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pai::launcher::ha {

/// No member of the cluster answered, or the one that did refused (what() names the members
/// tried and the last reason, or etcd's error).
class EtcdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The caller's cancel() said so while a call waited.
class EtcdCancelled : public EtcdError {
 public:
  EtcdCancelled() : EtcdError("cancelled") {}
};

/// An election's leader, as etcd keeps it: a key under the election's name, held by a lease.
struct Leader {
  std::string name;  ///< the election
  std::string key;   ///< the leader's key (the name, a slash, its lease in hex)
  std::int64_t revision = 0;  ///< the key's create revision: later leaders have higher ones
  std::int64_t lease = 0;
  std::string value;  ///< what the leader published (known for leader(); campaign(): ours)
  bool operator==(const Leader&) const = default;
};

/// A lease etcd granted.
struct Lease {
  std::int64_t id = 0;
  std::int64_t ttl_seconds = 0;  ///< as granted
};

struct EtcdOptions {
  /// Client URLs of the cluster's members: "http://HOST:PORT" (numeric host, or a name).
  std::vector<std::string> endpoints;
  /// A call's limit on one member, before the next is tried.
  std::chrono::milliseconds request_timeout{2000};
};

/// Thread-safe: each call opens its own connection.
class EtcdClient {
 public:
  /// Throws EtcdError for an empty list or an endpoint that is not http://HOST:PORT.
  explicit EtcdClient(EtcdOptions options);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  /// A new lease of `ttl_seconds` (at least 1; etcd may grant more: its minimum is one and a
  /// half election timeouts).
  Lease grant_lease(int ttl_seconds);
  /// Renews `lease`; the seconds it has left now, 0 when it has expired (or never existed).
  std::int64_t keep_alive(std::int64_t lease);
  /// Ends `lease` and deletes its keys (a leader's resigns with it).
  void revoke_lease(std::int64_t lease);

  /// Stands in election `name` with `lease`, publishing `value`, and returns once this
  /// candidate leads: at once when nobody does, else when the leaders before it are gone
  /// (their leases expired or revoked, or they resigned). Returns nullopt at `deadline`, or
  /// throws EtcdCancelled when `cancel` says so (asked every 100 ms): either way the
  /// candidacy is withdrawn when the member notices the closed request. The lease must be
  /// kept alive meanwhile.
  std::optional<Leader> campaign(const std::string& name, std::int64_t lease,
                                 const std::string& value,
                                 std::chrono::steady_clock::time_point deadline,
                                 const std::function<bool()>& cancel = {});
  /// The leader of election `name` now, or nullopt when there is none.
  std::optional<Leader> leader(const std::string& name);
  /// Gives the lead up (the next candidate leads); nothing when `me` no longer leads.
  void resign(const Leader& me);

  /// Puts `key` = `value` only while `me` still leads (its key exists with its revision):
  /// whether it did. A leader whose lease expired (cut off, stalled) can no longer write.
  bool put_if_leader(const Leader& me, const std::string& key, const std::string& value);
  /// The value of `key`, or nullopt.
  std::optional<std::string> get(const std::string& key);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pai::launcher::ha
