// The etcd client against a real 3-member etcd cluster on loopback (Debian's
// etcd-server): leases, the election, the leader's guarded put, and members lost on the way.
#include "launcher/ha/etcd_client.h"

#include <catch2/catch.hpp>
#include <future>
#include <string>
#include <thread>

#include "launcher/ha/etcd_cluster.h"

namespace etcd_client_test {

using pai::launcher::ha::EtcdCancelled;
using pai::launcher::ha::EtcdClient;
using pai::launcher::ha::EtcdError;
using pai::launcher::ha::Leader;
using pai::testing::EtcdCluster;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Each case its own cluster on a subnet of its own (127.211-215.0.x): ctest runs cases side
// by side.
EtcdClient client(const EtcdCluster& cluster) {
  return EtcdClient({.endpoints = cluster.endpoints()});
}

TEST_CASE("a lease lives while it is kept alive and ends when revoked") {
  EtcdCluster cluster(211);
  EtcdClient etcd = client(cluster);
  const std::int64_t lease = etcd.grant_lease(2).id;
  CHECK(lease != 0);
  CHECK(etcd.keep_alive(lease) == 2);
  etcd.revoke_lease(lease);
  CHECK(etcd.keep_alive(lease) == 0);
  // Revoking again asks for what already is.
  CHECK_NOTHROW(etcd.revoke_lease(lease));
}

TEST_CASE("the first candidate leads and the next leads once it is gone") {
  EtcdCluster cluster(212);
  EtcdClient etcd = client(cluster);
  const std::string election = "pai/test/first-next";
  CHECK_FALSE(etcd.leader(election).has_value());
  const std::int64_t a = etcd.grant_lease(5).id;
  const std::int64_t b = etcd.grant_lease(5).id;
  const auto first = etcd.campaign(election, a, "127.0.0.1:20000", Clock::now() + 5s);
  REQUIRE(first.has_value());
  CHECK(first->lease == a);
  const auto seen = etcd.leader(election);
  REQUIRE(seen.has_value());
  CHECK(seen->value == "127.0.0.1:20000");
  CHECK(seen->key == first->key);
  CHECK(seen->revision == first->revision);

  // The second waits while the first leads...
  auto second = std::async(std::launch::async, [&] {
    EtcdClient own = client(cluster);
    return own.campaign(election, b, "127.0.0.2:20000", Clock::now() + 10s);
  });
  CHECK(second.wait_for(1s) == std::future_status::timeout);
  CHECK(etcd.keep_alive(b) > 0);
  // ...and leads once the first resigns, with a later revision.
  etcd.resign(*first);
  REQUIRE(second.wait_for(5s) == std::future_status::ready);
  const auto next = second.get();
  REQUIRE(next.has_value());
  CHECK(next->lease == b);
  CHECK(next->revision > first->revision);
  CHECK(etcd.leader(election)->value == "127.0.0.2:20000");
  etcd.revoke_lease(a);
  etcd.revoke_lease(b);
}

TEST_CASE("a leader whose lease expired can no longer write - the next one can") {
  EtcdCluster cluster(213);
  EtcdClient etcd = client(cluster);
  const std::string election = "pai/test/expired";
  const std::int64_t a = etcd.grant_lease(1).id;
  const std::int64_t b = etcd.grant_lease(10).id;
  const auto first = etcd.campaign(election, a, "a", Clock::now() + 5s);
  REQUIRE(first.has_value());
  CHECK(etcd.put_if_leader(*first, "pai/test/expired-state", "from a"));
  CHECK(etcd.get("pai/test/expired-state") == "from a");
  // Not kept alive (its launcher stalled, its node cut off): the lead passes on.
  const auto t = Clock::now();
  const auto next = etcd.campaign(election, b, "b", Clock::now() + 10s);
  REQUIRE(next.has_value());
  CHECK(Clock::now() - t < 5s);
  CHECK_FALSE(etcd.put_if_leader(*first, "pai/test/expired-state", "late from a"));
  CHECK(etcd.put_if_leader(*next, "pai/test/expired-state", "from b"));
  CHECK(etcd.get("pai/test/expired-state") == "from b");
  etcd.revoke_lease(b);
}

TEST_CASE("a campaign ends at its deadline or when cancelled, and withdraws") {
  EtcdCluster cluster(214);
  EtcdClient etcd = client(cluster);
  const std::string election = "pai/test/deadline";
  const std::int64_t a = etcd.grant_lease(10).id;
  const std::int64_t b = etcd.grant_lease(10).id;
  REQUIRE(etcd.campaign(election, a, "a", Clock::now() + 5s).has_value());
  auto t = Clock::now();
  CHECK_FALSE(etcd.campaign(election, b, "b", Clock::now() + 500ms).has_value());
  CHECK(Clock::now() - t < 3s);
  std::atomic<bool> stop = false;
  auto cancelled = std::async(std::launch::async, [&] {
    EtcdClient own = client(cluster);
    try {
      own.campaign(election, b, "b", Clock::now() + 30s, [&] { return stop.load(); });
    } catch (const EtcdCancelled&) {
      return true;
    }
    return false;
  });
  std::this_thread::sleep_for(300ms);
  stop = true;
  REQUIRE(cancelled.wait_for(3s) == std::future_status::ready);
  CHECK(cancelled.get());
  // Withdrawn: when a resigns, nobody leads (b's candidacy is gone with its request).
  std::this_thread::sleep_for(300ms);
  etcd.resign(*etcd.leader(election));
  CHECK_FALSE(etcd.leader(election).has_value());
  etcd.revoke_lease(a);
  etcd.revoke_lease(b);
}

TEST_CASE("a member lost changes nothing - none left is a clear error") {
  EtcdCluster cluster(215);
  EtcdClient etcd = client(cluster);
  const std::int64_t lease = etcd.grant_lease(10).id;
  cluster.kill(0);
  CHECK(etcd.keep_alive(lease) == 10);
  CHECK(etcd.put_if_leader(*etcd.campaign("pai/test/lost", lease, "x", Clock::now() + 5s),
                           "pai/test/lost-state", "kept"));
  CHECK(etcd.get("pai/test/lost-state") == "kept");
  cluster.start(0);
  cluster.wait_healthy();
  etcd.revoke_lease(lease);

  EtcdClient nobody({.endpoints = {"http://127.215.0.9:2379"},
                     .request_timeout = std::chrono::milliseconds(300)});
  CHECK_THROWS_WITH(nobody.grant_lease(5),
                    Catch::Contains("no etcd member answered /v3/lease/grant") &&
                        Catch::Contains("http://127.215.0.9:2379"));
}

TEST_CASE("endpoints that are not http://HOST:PORT are refused") {
  CHECK_THROWS_AS(EtcdClient({}), EtcdError);
  CHECK_THROWS_WITH(EtcdClient({.endpoints = {"https://127.0.0.1:2379"}}),
                    Catch::Contains("https is not supported"));
  CHECK_THROWS_WITH(EtcdClient({.endpoints = {"http://127.0.0.1"}}),
                    Catch::Contains("expected http://HOST:PORT"));
  CHECK_THROWS_WITH(EtcdClient({.endpoints = {"http://127.0.0.1:99999"}}),
                    Catch::Contains("expected http://HOST:PORT"));
}

}  // namespace etcd_client_test
