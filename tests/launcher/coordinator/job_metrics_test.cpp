#include "launcher/coordinator/job_metrics.h"

#include <catch2/catch.hpp>

namespace job_metrics_test {

using namespace pai::launcher::coordinator;
namespace journal = pai::launcher::journal;

TEST_CASE("a restart's cause comes from the failure's signature") {
  CHECK(restart_cause("exit:1") == RestartCause{"exit-code", "1"});
  CHECK(restart_cause("signal:9") == RestartCause{"signal", "SIGKILL"});
  CHECK(restart_cause("signal:200") == RestartCause{"signal", "200"});
  CHECK(restart_cause("pattern:NCCL error") == RestartCause{"log-pattern", "NCCL error"});
  CHECK(restart_cause("hang") == RestartCause{"hang", ""});
  CHECK(restart_cause("node-lost") == RestartCause{"node-lost", ""});
  CHECK(restart_cause("diagnosis:RankCommHang") == RestartCause{"diagnosis", "RankCommHang"});
  CHECK(restart_cause("") == RestartCause{"unknown", ""});
  CHECK(restart_cause("pattern:" + std::string(200, 'x')).cls == std::string(64, 'x'));
}

TEST_CASE("restarts - check runs and verdicts are counted from records") {
  JobMetrics m;
  m.recorded(journal::Restart{.instance = "worker-0", .signature = "exit:3"});
  m.recorded(journal::Restart{.instance = "worker-1", .signature = "exit:3"});
  m.recorded(journal::Checks{.checks = {"[{\"name\":\"gpu\",\"status\":\"passed\"},"
                                        "{\"name\":\"burn\",\"status\":\"failed\"}]"}});
  m.recorded(journal::Join{.checks = {"[{\"name\":\"gpu\",\"status\":\"passed\"}]"}});
  m.recorded(journal::Diagnosis{.cls = "RankCommSlow", .severity = "warning"});
  m.recorded(journal::Exited{.reason = "exit:3"});  // not a restart
  CHECK(m.restarts_total() == 2);
  CHECK(m.restarts() == std::map<RestartCause, std::uint64_t>{{{"exit-code", "3"}, 2}});
  using Key = std::pair<std::string, std::string>;
  CHECK(m.check_runs() ==
        std::map<Key, std::uint64_t>{{{"gpu", "passed"}, 2}, {{"burn", "failed"}, 1}});
  CHECK(m.verdicts() == std::map<Key, std::uint64_t>{{{"RankCommSlow", "warning"}, 1}});
}

TEST_CASE("records without a signature or with checks of the wrong form count only what they can") {
  JobMetrics m;
  m.recorded(journal::Restart{.instance = "worker-0"});  // a node's: no signature
  m.recorded(journal::Restart{.signature = ""});
  m.recorded(journal::Checks{.checks = {"none"}});
  m.recorded(journal::Checks{.checks = {"{\"name\":\"gpu\",\"status\":\"passed\"}"}});
  m.recorded(journal::Checks{.checks = {"[{\"name\":1,\"status\":\"passed\"},3]"}});
  CHECK(m.restarts_total() == 2);
  CHECK(m.restarts() == std::map<RestartCause, std::uint64_t>{{{"unknown", ""}, 2}});
  CHECK(m.check_runs().empty());
  CHECK(m.verdicts().empty());
}

TEST_CASE("ever-new label values stop at kMaxLabelSets - the rest count as other") {
  JobMetrics m;
  for (int k = 0; k < 100; ++k) {
    m.recorded(journal::Restart{.signature = "pattern:error " + std::to_string(k)});
    m.recorded(journal::Checks{
        .checks = {"[{\"name\":\"c" + std::to_string(k) + "\",\"status\":\"passed\"}]"}});
  }
  CHECK(m.restarts_total() == 100);
  CHECK(m.restarts().size() == kMaxLabelSets + 1);
  CHECK(m.restarts().at(RestartCause{"log-pattern", "other"}) == 100 - kMaxLabelSets);
  CHECK(m.check_runs().size() == kMaxLabelSets + 1);
  CHECK(m.check_runs().at({"other", "passed"}) == 100 - kMaxLabelSets);
}

TEST_CASE("heartbeats give each rank's steps - instance progress and liveness") {
  JobMetrics m;
  const auto t0 = JobMetrics::Clock::time_point{} + std::chrono::hours(1);
  CHECK_FALSE(m.last_heartbeat(2));
  m.alive(2, t0);
  CHECK(m.last_heartbeat(2) == t0);
  CHECK_FALSE(m.last_heartbeat(1));
  pai::net::HeartbeatInstance beat;
  beat.instance = 1;
  beat.step = 40;
  pai::net::RankTelemetry t;
  t.rank = 3;
  t.step = 41;
  t.steps = 4;
  t.step_us = 4 * 200000;  // 0.2 s each
  t.comm_us = 10;
  beat.telemetry.push_back(t);
  t.steps = 0;  // a window with no step ended: the step and collective time still count
  t.step_us = 0;
  t.step = 42;
  pai::net::NodeHeartbeat first{{beat}};
  m.heartbeat(first);
  beat.telemetry[0] = t;
  m.heartbeat(pai::net::NodeHeartbeat{{beat}});
  CHECK(m.instance_step(1) == 40);
  CHECK_FALSE(m.instance_step(0));
  beat.instance = 0;
  beat.step = -1;  // no progress reported yet
  beat.telemetry.clear();
  m.heartbeat(pai::net::NodeHeartbeat{{beat}});
  CHECK_FALSE(m.instance_step(0));
  REQUIRE(m.ranks().size() == 4);
  CHECK_FALSE(m.ranks()[0].reported);
  const RankSteps& r = m.ranks()[3];
  CHECK(r.reported);
  CHECK(r.step == 42);
  CHECK(r.count == 4);
  CHECK(r.step_us == 800000);
  CHECK(r.comm_us == 20);
  CHECK(r.buckets[4] == 4);  // 0.2 s: the 0.25 s bucket
  CHECK(m.step_us_total() == 800000);
}

}  // namespace job_metrics_test
