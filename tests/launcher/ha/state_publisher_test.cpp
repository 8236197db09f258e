// The leader's state in etcd, on a real 3-member cluster on loopback: the latest value wins,
// and a writer that no longer leads writes nothing more.
#include "launcher/ha/state_publisher.h"

#include <catch2/catch.hpp>

#include "launcher/ha/etcd_cluster.h"

namespace state_publisher_test {

using pai::launcher::ha::EtcdClient;
using pai::launcher::ha::StatePublisher;
using pai::testing::EtcdCluster;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST_CASE("the latest state is written, while the writer leads") {
  EtcdCluster cluster(222);
  EtcdClient etcd({.endpoints = cluster.endpoints()});
  const auto lease = etcd.grant_lease(10).id;
  const auto me = etcd.campaign("pai/test/state", lease, "a", Clock::now() + 5s);
  REQUIRE(me);
  StatePublisher publisher(etcd, *me, "pai/test/state-value");
  for (int i = 0; i < 200; ++i) publisher.publish("state " + std::to_string(i));
  REQUIRE(publisher.flush(5s));
  CHECK(etcd.get("pai/test/state-value") == "state 199");
  CHECK(publisher.leading());
  CHECK(publisher.last_error().empty());

  // Another leads now: the next put is refused, and nothing more is written.
  etcd.resign(*me);
  const auto next_lease = etcd.grant_lease(10).id;
  const auto next = etcd.campaign("pai/test/state", next_lease, "b", Clock::now() + 5s);
  REQUIRE(next);
  publisher.publish("stale");
  CHECK_FALSE(publisher.flush(5s));
  CHECK_FALSE(publisher.leading());
  publisher.publish("staler");
  CHECK(etcd.get("pai/test/state-value") == "state 199");
}

TEST_CASE("a state etcd cannot take is tried again, the latest one") {
  EtcdCluster cluster(223);
  EtcdClient etcd({.endpoints = cluster.endpoints(), .request_timeout = 300ms});
  const auto lease = etcd.grant_lease(30).id;
  const auto me = etcd.campaign("pai/test/retry", lease, "a", Clock::now() + 5s);
  REQUIRE(me);
  StatePublisher publisher(etcd, *me, "pai/test/retry-value");
  for (int i = 0; i < 3; ++i) cluster.kill(i);
  publisher.publish("first");
  publisher.publish("second");
  CHECK_FALSE(publisher.flush(1s));
  CHECK_THAT(publisher.last_error(), Catch::Contains("no etcd member answered"));
  CHECK(publisher.leading());
  for (int i = 0; i < 3; ++i) cluster.start(i);
  cluster.wait_healthy();
  REQUIRE(publisher.flush(10s));
  CHECK(etcd.get("pai/test/retry-value") == "second");
}

}  // namespace state_publisher_test
