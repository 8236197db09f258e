// The lease keeper against a real 3-member etcd cluster on loopback: renewed while it lives,
// revoked when it goes, and lost - by its own clock - when etcd is gone or says so.
#include "launcher/ha/lease_keeper.h"

#include <catch2/catch.hpp>
#include <thread>

#include "launcher/ha/etcd_cluster.h"

namespace lease_keeper_test {

using pai::launcher::ha::EtcdClient;
using pai::launcher::ha::LeaseKeeper;
using pai::testing::EtcdCluster;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST_CASE("a kept lease outlives its TTL and is revoked when the keeper goes") {
  EtcdCluster cluster(216);
  EtcdClient etcd({.endpoints = cluster.endpoints(), .request_timeout = 500ms});
  std::int64_t id = 0;
  {
    LeaseKeeper keeper(etcd, 2s);
    id = keeper.id();
    CHECK(keeper.ttl() == 2s);
    const auto first = keeper.valid_until();
    CHECK(first > Clock::now());
    CHECK(first <= Clock::now() + 2s);
    std::this_thread::sleep_for(3s);
    CHECK_FALSE(keeper.lost());
    CHECK(keeper.valid_until() > first);
    CHECK(keeper.last_error().empty());
    // Renewed by the keeper, not by this look: another client sees it alive.
    EtcdClient other({.endpoints = {cluster.endpoint(2)}});
    CHECK(other.keep_alive(id) > 0);
  }
  CHECK(etcd.keep_alive(id) == 0);
}

TEST_CASE("a lease etcd can no longer renew is lost by the keeper's clock, before etcd's") {
  EtcdCluster cluster(217);
  EtcdClient etcd({.endpoints = cluster.endpoints(), .request_timeout = 300ms});
  LeaseKeeper keeper(etcd, 2s);
  const auto cut = Clock::now();
  for (int i = 0; i < 3; ++i) cluster.kill(i);
  // Lost no later than the TTL after the last renewal that could have reached etcd.
  while (!keeper.lost() && Clock::now() - cut < 5s) std::this_thread::sleep_for(20ms);
  CHECK(keeper.lost());
  CHECK(Clock::now() - cut <= 2s);
  CHECK_THAT(keeper.last_error(), Catch::Contains("no etcd member answered"));
}

TEST_CASE("a lease etcd says has expired is lost at once") {
  EtcdCluster cluster(218);
  EtcdClient etcd({.endpoints = cluster.endpoints(), .request_timeout = 500ms});
  LeaseKeeper keeper(etcd, 3s);
  etcd.revoke_lease(keeper.id());
  const auto t = Clock::now();
  while (!keeper.lost() && Clock::now() - t < 3s) std::this_thread::sleep_for(20ms);
  CHECK(keeper.lost());
  CHECK(Clock::now() - t < 1500ms);
  CHECK(keeper.last_error() == "etcd says the lease expired");
}

}  // namespace lease_keeper_test
