// coordinator.ha on real launchers and a real 3-member etcd cluster, all on loopback
// addresses: the coordinator's launcher killed mid-run, another launcher takes over. (The cut
// link to the coordinator's node is tested in network namespaces: coordinator_ha_netns_test.sh.)
#include <catch2/catch.hpp>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "launcher/ha/etcd_cluster.h"
#include "launcher/multi_node/cluster_harness.h"

namespace coordinator_ha_test {

using namespace pai;
using namespace pai::testing;
using Json = nlohmann::json;

namespace {

// The records of `kind` in the journal at `path`, in order.
std::vector<Json> records(const std::string& path, const std::string& kind) {
  std::vector<Json> out;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);) {
    const Json record = Json::parse(line, nullptr, false);
    if (!record.is_discarded() && record.value("event", "") == kind) out.push_back(record);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "coordinator.ha: the coordinator's launcher killed with SIGKILL mid-run - another "
    "takes over, the spare takes its instance, the job finishes") {
  EtcdCluster etcd(226);
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  // Attempt 0 runs until killed; the attempt after the takeover finishes at once.
  const std::string script = "echo $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX > " + results +
                             "/rank-$RANK.attempt-$PAI_RESTART_COUNT\n"
                             "[ \"$PAI_RESTART_COUNT\" = 0 ] && exec sleep 60\n"
                             "exit 0\n";
  Plan plan = cluster_plan("mn-ha-kill", 227, 2, 1, script);
  plan.coordinator_ha.etcd = etcd.endpoints();
  plan.coordinator_ha.lease_seconds = 2;
  Cluster cluster(plan);
  cluster.start_all();
  REQUIRE(wait_for_file(results + "/rank-0.attempt-0", 30));
  REQUIRE(wait_for_file(results + "/rank-1.attempt-0", 30));
  // An etcd member lost on the way changes nothing.
  etcd.kill(2);
  ::kill(cluster.launcher("node-1").pid(), SIGKILL);
  CHECK(cluster.launcher("node-1").wait(5) == 128 + SIGKILL);
  std::map<std::string, int> codes;
  for (const char* node : {"node-2", "node-3"}) codes[node] = cluster.launcher(node).wait(60);
  expect_all_exit(codes, 0, cluster);
  INFO(cluster.transcript());
  // The takeover counts as a restart: attempt 1, with node-1's instance on the spare.
  CHECK(files_in(results).count("rank-0.attempt-1") == 1);
  CHECK(files_in(results).count("rank-1.attempt-1") == 1);
  CHECK(cluster.launcher("node-3").err().find("assigned worker-0") != std::string::npos);

  // Two coordinators one after the other, never at once: node-1 elected first, then the
  // launcher that stood by first (node-2 or the spare) after node-1 was lost, with a later
  // revision; the job's end is the second one's.
  const std::string journal = cluster.dir() / "logs/coordinator/events.jsonl";
  const auto elected = records(journal, "coordinator-elected");
  REQUIRE(elected.size() == 2);
  CHECK(elected[0].at("node") == "node-1");
  CHECK_FALSE(elected[0].contains("lost"));
  const std::string next = elected[1].at("node");
  CHECK((next == "node-2" || next == "node-3"));
  CHECK(elected[1].at("lost") == "node-1");
  CHECK(elected[1].at("revision").get<std::int64_t>() >
        elected[0].at("revision").get<std::int64_t>());
  CHECK(elected[1].at("address") ==
        "127.227.0." + next.substr(5) + ":" + std::to_string(plan.coordinator.port));
  CHECK(records(journal, "node-excluded").size() == 1);
  CHECK(records(journal, "job-succeeded").size() == 1);
  // The launchers found it through etcd.
  const auto found = records(cluster.dir() / "logs/spare-node-3/events.jsonl", "coordinator-found");
  REQUIRE(found.size() == 2);
  CHECK(found[0].at("node") == "node-1");
  CHECK(found[1].at("node") == next);
  CHECK(leftover_processes("mn-ha-kill").empty());
}

TEST_CASE(
    "coordinator.ha: the coordinator's launcher killed before the others joined - they "
    "find the next leader instead of retrying the dead one") {
  EtcdCluster etcd(228);
  TempDir out;
  const std::string results = out / "runs";
  ::mkdir(results.c_str(), 0755);
  Plan plan = cluster_plan("mn-ha-early", 229, 2, 1,
                           "touch " + results + "/rank-$RANK.attempt-$PAI_RESTART_COUNT\n");
  plan.coordinator_ha.etcd = etcd.endpoints();
  plan.coordinator_ha.lease_seconds = 1;
  Cluster cluster(plan);
  cluster.start("node-1");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (cluster.launcher("node-1").err().find("elected to coordinate") == std::string::npos) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(cluster.launcher("node-1").pid(), SIGKILL);
  CHECK(cluster.launcher("node-1").wait(5) == 128 + SIGKILL);
  // etcd still names node-1 until its lease lapses: the others find it, and it refuses them.
  cluster.start("node-2");
  cluster.start("node-3");
  std::map<std::string, int> codes;
  for (const char* node : {"node-2", "node-3"}) codes[node] = cluster.launcher(node).wait(30);
  expect_all_exit(codes, 0, cluster);
  INFO(cluster.transcript());
  // Well within their 20 s rendezvous timeout, and the job never started before: attempt 0.
  CHECK(files_in(results) == std::set<std::string>{"rank-0.attempt-0", "rank-1.attempt-0"});
  const std::string said = cluster.launcher("node-2").err() + cluster.launcher("node-3").err();
  CHECK(said.find("coordinator.ha: etcd names node-") != std::string::npos);
  CHECK(leftover_processes("mn-ha-early").empty());
}

TEST_CASE("coordinator.ha: with etcd unreachable a launcher says so and exits 2") {
  Plan plan = cluster_plan("mn-ha-none", 227, 2, 0, "exit 0");
  // Nothing listens there.
  plan.coordinator_ha.etcd = {"http://127.227.0.200:2379"};
  Cluster cluster(plan);
  cluster.start("node-1");
  CHECK(cluster.launcher("node-1").wait(20) == 2);
  CHECK(cluster.launcher("node-1").err().find("coordinator.ha: cannot take a lease from etcd: ") !=
        std::string::npos);
}

}  // namespace coordinator_ha_test
