// SIGTERM and SIGINT stop a launcher within a second in every state of a multi-node job: while
// it waits for a coordinator that is not there yet, and while the coordinator waits for nodes.
#include <catch2/catch.hpp>

#include "launcher/multi_node/cluster_harness.h"

namespace stop_signals_test {

using namespace pai;
using namespace pai::testing;

namespace {

// Waits until `launcher` wrote `text` on stderr; false after 20 s.
bool wait_for_stderr(Launcher& launcher, const std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (launcher.err().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Sends `signal` and returns the exit code and how long the launcher took to exit after it.
std::pair<int, double> stop_with(Launcher& launcher, int signal) {
  const auto sent = std::chrono::steady_clock::now();
  ::kill(launcher.pid(), signal);
  const int code = launcher.wait(30);
  return {code, std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count()};
}

}  // namespace

TEST_CASE("a launcher waiting for its coordinator stops at once on SIGTERM or SIGINT") {
  for (const auto& [signal, subnet] : {std::pair{SIGTERM, 130}, std::pair{SIGINT, 131}}) {
    const std::string name = "stop-waiting-" + std::to_string(signal);
    Plan plan = cluster_plan(name, subnet, 2, 0, "exec sleep 60");
    Cluster cluster(plan);
    // node-1 serves the coordinator; without it node-2 waits (--rendezvous-timeout 20s).
    Launcher& node = cluster.start("node-2");
    INFO(cluster.transcript());
    REQUIRE(wait_for_stderr(node, "waiting for the coordinator"));
    const auto [code, seconds] = stop_with(node, signal);
    CHECK(code == 128 + signal);
    CHECK(seconds < 1.0);
    CHECK(node.err().find("while waiting for the coordinator") != std::string::npos);
    CHECK(slurp(cluster.dir() / "logs/worker-1/events.jsonl").find("\"node-stopping\"") !=
          std::string::npos);
    CHECK(leftover_processes(name).empty());
  }
}

TEST_CASE("a coordinator waiting for its nodes stops at once on SIGTERM") {
  Plan plan = cluster_plan("stop-rendezvous", 132, 2, 0, "exec sleep 60");
  Cluster cluster(plan);
  Launcher& node = cluster.start("node-1");
  INFO(cluster.transcript());
  REQUIRE(wait_for_stderr(node, "joined the coordinator"));
  const auto [code, seconds] = stop_with(node, SIGTERM);
  CHECK(code == 128 + SIGTERM);
  CHECK(seconds < 1.0);
  CHECK(leftover_processes("stop-rendezvous").empty());
}

}  // namespace stop_signals_test
