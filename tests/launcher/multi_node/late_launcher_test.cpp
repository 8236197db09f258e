// A launcher that comes after its job ended (issue 38, finding 10): real pai-launch processes
// on 127.184.0.x. The coordinator's launcher leaves an ended coordinator behind when a machine
// of the plan had no launcher connected at the end; a late launcher hears how the job ended at
// once instead of retrying a closed port for its whole rendezvous timeout, and a run of the
// job again takes the port back.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <regex>
#include <string>

#include "launcher/coordinator/ended_coordinator.h"
#include "launcher/multi_node/cluster_harness.h"

namespace late_launcher_test {

using namespace pai;
using namespace pai::testing;

namespace {

// The pid in "pai-launch ended-coordinator, pid N" of a launcher's stderr; 0 when none.
int ended_coordinator_pid(const std::string& err) {
  std::smatch m;
  static const std::regex pid("ended-coordinator, pid ([0-9]+)");
  return std::regex_search(err, m, pid) ? std::atoi(m[1].str().c_str()) : 0;
}

}  // namespace

TEST_CASE("a launcher that comes after the job ended hears how it ended within seconds") {
  // One instance and a spare whose launcher is not started with the others.
  Cluster cluster(cluster_plan("late-launcher", 184, 1, 1, "echo trained"));
  const Plan& plan = cluster.plan();
  cluster.start("node-1");
  REQUIRE(cluster.launcher("node-1").wait(40) == 0);
  const std::string first = cluster.launcher("node-1").err();
  INFO(first);
  CHECK_THAT(first, Catch::Contains("no launcher of node-2 was connected at the end"));
  const int ended = ended_coordinator_pid(first);
  REQUIRE(ended > 0);
  CHECK(process_alive(ended));

  // The spare's launcher, late: its rendezvous timeout is 20 s. Started after the end, it
  // might be of a new run of the job, whose coordinator is about to listen: it is told once it
  // has run 10 s.
  cluster.start("node-2");
  const int late = cluster.launcher("node-2").wait(18);
  INFO(cluster.transcript());
  CHECK(late == 1);
  CHECK(cluster.launcher("node-2").elapsed() >= 9.5);
  CHECK(cluster.launcher("node-2").elapsed() < 14);
  const std::string told = cluster.launcher("node-2").err();
  CHECK_THAT(told, Catch::Contains("the job ended: succeeded"));
  CHECK_THAT(told, Catch::Contains("the launcher of node-2 came after its coordinator ended"));

  // The job run again: the ended coordinator gives the port up, the run succeeds.
  cluster.start("node-1");
  REQUIRE(cluster.launcher("node-1").wait(40) == 0);
  CHECK(process_gone_within(ended, 5));
  const int again = ended_coordinator_pid(cluster.launcher("node-1").err());
  CHECK(again > 0);
  CHECK(launcher::coordinator::dismiss_ended_coordinator(plan.coordinator.address,
                                                         plan.coordinator.port));
  if (again > 0) CHECK(process_gone_within(again, 5));
}

TEST_CASE("a job whose every machine was connected at the end leaves nothing behind") {
  Cluster cluster(cluster_plan("late-launcher-none", 185, 2, 0, "echo trained"));
  cluster.start_all();
  const auto codes = cluster.wait_all();
  INFO(cluster.transcript());
  CHECK(codes.at("node-1") == 0);
  CHECK(codes.at("node-2") == 0);
  CHECK(ended_coordinator_pid(cluster.launcher("node-1").err()) == 0);
  CHECK_FALSE(launcher::coordinator::dismiss_ended_coordinator(cluster.plan().coordinator.address,
                                                               cluster.plan().coordinator.port));
}

}  // namespace late_launcher_test
