// Who coordinates, on a real 3-member etcd cluster on loopback: the first to lead, the next
// when the leader's launcher ends, is killed with SIGKILL, or loses etcd; one at a time.
#include "launcher/ha/coordinator_election.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "launcher/ha/etcd_cluster.h"

namespace coordinator_election_test {

using pai::launcher::ha::CoordinatorElection;
using pai::launcher::ha::election_name;
using pai::launcher::ha::ElectionOptions;
using pai::launcher::ha::Leader;
using pai::testing::EtcdCluster;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

ElectionOptions options(const EtcdCluster& cluster, const std::string& address) {
  return ElectionOptions{.etcd = {.endpoints = cluster.endpoints(), .request_timeout = 500ms},
                         .job = "ha-job",
                         .seal = "0123456789abcdef0123",
                         .lease = 2s,
                         .address = address};
}

TEST_CASE("the election is named after the job and its plan's seal") {
  CHECK(election_name("llama", "0123456789abcdef0123") ==
        "pai/jobs/llama/0123456789abcdef/coordinator");
}

TEST_CASE("the first leads - one standing by leads once the first's launcher ends") {
  EtcdCluster cluster(219);
  auto first = std::make_unique<CoordinatorElection>(options(cluster, "127.0.0.1:20000"));
  REQUIRE(first->lead(Clock::now() + 5s).has_value());
  CHECK(first->may_act());
  CoordinatorElection second(options(cluster, "127.0.0.2:20000"));
  CHECK(second.leader()->value == "127.0.0.1:20000");
  std::promise<Leader> led;
  second.stand_by([&](const Leader& l) { led.set_value(l); });
  auto leads = led.get_future();
  CHECK(leads.wait_for(1s) == std::future_status::timeout);
  const auto t = Clock::now();
  first.reset();  // its lease revoked: the lead passes on at once
  REQUIRE(leads.wait_for(3s) == std::future_status::ready);
  CHECK(Clock::now() - t < 1s);
  CHECK(leads.get().value == "127.0.0.2:20000");
  CHECK(second.leader()->value == "127.0.0.2:20000");
}

TEST_CASE("one standing by leads a lease after the leader's launcher is killed with SIGKILL") {
  EtcdCluster cluster(220);
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t leader = ::fork();
  if (leader == 0) {
    CoordinatorElection mine(options(cluster, "127.0.0.1:20000"));
    const bool led = mine.lead(Clock::now() + 5s).has_value();
    [[maybe_unused]] const auto n = ::write(ready[1], &led, 1);
    ::pause();
    ::_exit(0);
  }
  bool led = false;
  REQUIRE(::read(ready[0], &led, 1) == 1);
  REQUIRE(led);
  CoordinatorElection next(options(cluster, "127.0.0.2:20000"));
  std::promise<Clock::time_point> took_over;
  next.stand_by([&](const Leader&) { took_over.set_value(Clock::now()); });
  std::this_thread::sleep_for(300ms);
  const auto killed = Clock::now();
  ::kill(leader, SIGKILL);
  ::waitpid(leader, nullptr, 0);
  auto when = took_over.get_future();
  REQUIRE(when.wait_for(5s) == std::future_status::ready);
  // Not before the dead leader's lease could have run out (less its margin), nor long after.
  const auto after = when.get() - killed;
  CHECK(after > 1s);
  CHECK(after < 3500ms);
}

TEST_CASE("a leader cut off from etcd may no longer act before another leads") {
  EtcdCluster cluster(221);
  // The leader reaches only member 1; the other candidate only members 2 and 3.
  ElectionOptions cut_off = options(cluster, "127.0.0.1:20000");
  cut_off.etcd.endpoints = {cluster.endpoint(0)};
  CoordinatorElection leader(cut_off);
  REQUIRE(leader.lead(Clock::now() + 5s).has_value());
  ElectionOptions others = options(cluster, "127.0.0.2:20000");
  others.etcd.endpoints = {cluster.endpoint(1), cluster.endpoint(2)};
  CoordinatorElection next(others);
  std::atomic<bool> overlap = false;
  std::promise<void> took_over;
  next.stand_by([&](const Leader&) {
    overlap = leader.may_act();
    took_over.set_value();
  });
  std::this_thread::sleep_for(300ms);
  cluster.kill(0);  // the leader's only member: its renewals fail from now on
  auto done = took_over.get_future();
  REQUIRE(done.wait_for(6s) == std::future_status::ready);
  CHECK_FALSE(overlap);
  CHECK_FALSE(leader.may_act());
}

}  // namespace coordinator_election_test
