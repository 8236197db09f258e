#include "launcher/policy/nic_verdict.h"

#include <catch2/catch.hpp>

namespace nic_verdict_test {

using namespace pai::launcher;

namespace {

NicPortSample port(const std::string& name, std::map<std::string, double> rates = {},
                   const std::string& state = "ACTIVE") {
  // Every port moves 1 GB/s each way and counts a few CNPs, as a healthy RoCE fabric does.
  std::map<std::string, double> all = {{"counters/port_xmit_data", 250e6},
                                       {"counters/port_rcv_data", 250e6},
                                       {"hw_counters/np_cnp_sent", 100},
                                       {"hw_counters/local_ack_timeout_err", 0}};
  for (const auto& [k, v] : rates) all[k] = v;
  return NicPortSample{.port = name, .netdev = "eth2", .state = state, .seconds = 1, .rates = all};
}

// One heartbeat of 4 nodes; `special` replaces node `node`'s port.
std::vector<NicVerdict> heartbeat(NicWatch& watch, int node = -1, NicPortSample special = {},
                                  bool collectives = true) {
  std::vector<NicVerdict> out;
  for (int n = 0; n < 4; ++n) {
    const auto v = watch.observe(n, {n == node ? special : port("mlx5_0/1")}, collectives);
    out.insert(out.end(), v.begin(), v.end());
  }
  const auto job = watch.judge_job();
  out.insert(out.end(), job.begin(), job.end());
  return out;
}

}  // namespace

TEST_CASE("a healthy fabric gives no verdict in many heartbeats") {
  NicWatch watch({});
  for (int i = 0; i < 20; ++i) CHECK(heartbeat(watch).empty());
}

TEST_CASE("a rising error counter names its node and port after the windows - once") {
  NicWatch watch({});
  const auto bad = port("mlx5_0/1", {{"hw_counters/local_ack_timeout_err", 340}});
  CHECK(heartbeat(watch, 2, bad).empty());  // one heartbeat is not yet a run
  const auto v = heartbeat(watch, 2, bad);
  REQUIRE(v.size() == 1);
  CHECK(v[0].node == 2);
  CHECK(v[0].port == "mlx5_0/1");
  CHECK(v[0].problem == NicProblem::Errors);
  CHECK(v[0].counter == "hw_counters/local_ack_timeout_err");
  CHECK(v[0].rate == 340);
  CHECK(v[0].critical);
  CHECK(v[0].evidence ==
        "mlx5_0/1 (eth2): hw_counters/local_ack_timeout_err +340/s for 2 heartbeats");
  CHECK(heartbeat(watch, 2, bad).empty());  // the same episode
  CHECK(heartbeat(watch).empty());          // clear: the episode ends
  CHECK(heartbeat(watch, 2, bad).empty());
  CHECK(heartbeat(watch, 2, bad).size() == 1);  // a new episode is named again
}

TEST_CASE("a NIC verdict holds until its port is seen clear - or its node forgotten") {
  NicWatch watch({});
  const auto bad = port("mlx5_0/1", {{"hw_counters/local_ack_timeout_err", 340}});
  heartbeat(watch, 2, bad);
  const auto v = heartbeat(watch, 2, bad);
  REQUIRE(v.size() == 1);
  CHECK(watch.holds(v[0]));
  heartbeat(watch, 2, bad);
  CHECK(watch.holds(v[0]));
  NicVerdict other = v[0];
  other.port = "mlx5_1/1";
  CHECK_FALSE(watch.holds(other));
  other = v[0];
  other.node = 7;
  CHECK_FALSE(watch.holds(other));
  heartbeat(watch);  // one clear window ends the episode
  CHECK_FALSE(watch.holds(v[0]));
  heartbeat(watch, 2, bad);
  REQUIRE(heartbeat(watch, 2, bad).size() == 1);
  CHECK(watch.holds(v[0]));
  watch.forget(2);
  CHECK_FALSE(watch.holds(v[0]));
}

TEST_CASE("a port that goes down or away is named at once - a flap too") {
  NicWatch watch({});
  heartbeat(watch);
  auto down = heartbeat(watch, 1, port("mlx5_0/1", {}, "DOWN"));
  REQUIRE(down.size() == 1);
  CHECK(down[0].problem == NicProblem::Down);
  CHECK(down[0].evidence == "mlx5_0/1 (eth2): state DOWN (was ACTIVE)");
  CHECK(heartbeat(watch, 1, port("mlx5_0/1", {}, "DOWN")).empty());
  heartbeat(watch);
  auto gone = heartbeat(watch, 1, port("mlx5_0/1", {}, ""));
  REQUIRE(gone.size() == 1);
  CHECK(gone[0].evidence == "mlx5_0/1 (eth2): its state cannot be read (the port is gone)");

  heartbeat(watch);
  auto flap = heartbeat(watch, 3, port("mlx5_0/1", {{"counters/link_downed", 1}}));
  REQUIRE(flap.size() == 1);
  CHECK(flap[0].problem == NicProblem::Flapping);
  CHECK(flap[0].node == 3);
  CHECK(flap[0].evidence == "mlx5_0/1 (eth2): counters/link_downed +1 in 1 s");
}

TEST_CASE("a congestion storm is named against the others' median - not when all storm") {
  NicWatch watch({});
  const auto storm = port("mlx5_0/1", {{"hw_counters/np_cnp_sent", 50000}});
  CHECK(heartbeat(watch, 0, storm).empty());
  // Judging again without new windows counts nothing toward the run.
  CHECK(watch.judge_job().empty());
  const auto v = heartbeat(watch, 0, storm);
  REQUIRE(v.size() == 1);
  CHECK(v[0].problem == NicProblem::Congestion);
  CHECK_FALSE(v[0].critical);
  CHECK(v[0].evidence ==
        "mlx5_0/1 (eth2): hw_counters/np_cnp_sent +50000/s, the job's median 100/s for 2 "
        "heartbeats");

  NicWatch all({});
  for (int i = 0; i < 5; ++i) {
    std::vector<NicVerdict> found;
    for (int n = 0; n < 4; ++n) all.observe(n, {storm}, true);
    CHECK(all.judge_job().empty());
  }
}

TEST_CASE("a port moving far fewer bytes while its ranks sit in collectives is slow") {
  NicWatch watch({});
  const auto slow =
      port("mlx5_0/1", {{"counters/port_xmit_data", 1e6}, {"counters/port_rcv_data", 1e6}});
  CHECK(heartbeat(watch, 3, slow, false).empty());  // not in collectives: no norm to miss
  CHECK(heartbeat(watch, 3, slow, false).empty());
  CHECK(heartbeat(watch, 3, slow).empty());
  const auto v = heartbeat(watch, 3, slow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].problem == NicProblem::Slow);
  CHECK(v[0].rate == 8e6);  // 4-byte words, both ways
  CHECK(v[0].evidence ==
        "mlx5_0/1 (eth2): moves 8.0 MB/s while its ranks sit in collectives, the job's median "
        "2.0 GB/s for 2 heartbeats");
}

TEST_CASE("diagnosis off - or a node forgotten - gives nothing") {
  NicVerdictSettings off;
  off.enabled = false;
  NicWatch quiet(off);
  const auto bad = port("mlx5_0/1", {{"counters/symbol_error", 1e6}}, "DOWN");
  for (int i = 0; i < 3; ++i) CHECK(heartbeat(quiet, 0, bad).empty());

  NicWatch watch({});
  const auto errors = port("mlx5_0/1", {{"counters/symbol_error", 50}});
  heartbeat(watch, 0, errors);
  watch.forget(0);  // a restart: the run starts over
  CHECK(heartbeat(watch, 0, errors).empty());
  CHECK(heartbeat(watch, 0, errors).size() == 1);
}

TEST_CASE("problems have names for records and metrics") {
  CHECK(std::string(pai::to_string(NicProblem::Down)) == "down");
  CHECK(std::string(pai::to_string(NicProblem::Flapping)) == "flapping");
  CHECK(std::string(pai::to_string(NicProblem::Errors)) == "errors");
  CHECK(std::string(pai::to_string(NicProblem::Congestion)) == "congestion");
  CHECK(std::string(pai::to_string(NicProblem::Slow)) == "slow");
  CHECK(pai::enum_from_string<NicProblem>("flapping") == NicProblem::Flapping);
}

}  // namespace nic_verdict_test
